import { AppError } from '@tollgate/kit';

export function checkGroup(group: string): string {
  const trimmed = group.trim();
  if (trimmed === '') throw AppError.field(['body', 'group'], 'group must not be empty', 'string_too_short');
  if (trimmed.length > 64) throw AppError.field(['body', 'group'], 'group must be at most 64 characters', 'string_too_long');
  return trimmed;
}

export function checkComments(comments: string): string {
  if (comments.length > 1000) throw AppError.field(['body', 'comments'], 'comments must be at most 1000 characters', 'string_too_long');
  return comments;
}

/** Upper bound of a key's own rpm_limit / concurrency_limit. */
export const MAX_KEY_LIMIT = 1_000_000;

export function checkLimit(value: number | undefined, field: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 0) return null;
  if (!Number.isInteger(value) || value < 0) throw AppError.field(['body', field], `${field} must be a whole number ≥ 0 (0 = the level default)`, 'greater_than_equal');
  if (value > MAX_KEY_LIMIT) throw AppError.field(['body', field], `${field} must be at most ${MAX_KEY_LIMIT}`, 'less_than_equal');
  return value;
}
