import type { ZodError } from 'zod';
import { AppError, type FieldIssue } from './app-error';

/** Converts a zod error into the spec's 422 items; `root` is prepended to every loc (e.g. "body"). */
export function zodIssues(error: ZodError, root: string[] = ['body']): FieldIssue[] {
  return error.issues.flatMap((issue): FieldIssue[] => {
    const loc = [...root, ...issue.path.map(String)];
    // One item per field a strict object does not take, located at that field.
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ loc: [...loc, key], msg: `unknown field "${key}"`, type: issue.code }));
    return [{ loc, msg: issue.message, type: issue.code }];
  });
}

export function zodToAppError(error: ZodError, root: string[] = ['body']): AppError {
  const issues = zodIssues(error, root);
  return AppError.invalid(issues, issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
}

/** Parses `input` with `schema` or throws an INVALID_ARGUMENT AppError. */
export function parseOrThrow<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: ZodError } }, input: unknown, root: string[] = ['body']): T {
  const result = schema.safeParse(input);
  if (!result.success) throw zodToAppError(result.error, root);
  return result.data;
}
