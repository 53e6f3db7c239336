import { AppError, ErrorCode } from '@tollgate/kit';

export const documentNotFound = (id: number) => AppError.notFound(`document ${id} not found`);

export const documentInTrash = (id: number) =>
  AppError.notFound(`document ${id} is in the trash; restore it with POST /api/v1/documents/${id}/restore`);

export const revisionNotFound = (id: number, version: number) => AppError.notFound(`document ${id} has no revision ${version}`);

export const slugTaken = (slug: string) => new AppError(ErrorCode.AlreadyExists, `slug "${slug}" is already used by another document`, { issues: [{ loc: ['body', 'slug'], msg: 'already used', type: 'value_error.duplicate' }] });

export const versionMismatch = (id: number, expected: number, actual: number) =>
  AppError.conflict(`document ${id} is at version ${actual}, not ${expected}: it changed since you read it`, { currentVersion: actual });
