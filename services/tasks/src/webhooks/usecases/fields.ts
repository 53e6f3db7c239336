import { AppError } from '@tollgate/kit';

export const MAX_DESCRIPTION = 500;

export function checkDescription(description: string): string {
  if (description.length > MAX_DESCRIPTION) throw AppError.field(['body', 'description'], `description must be at most ${MAX_DESCRIPTION} characters`, 'string_too_long');
  return description;
}
