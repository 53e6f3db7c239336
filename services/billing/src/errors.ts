import { AppError } from '@tollgate/kit';

/** The three ways an admission is refused; every one is RESOURCE_EXHAUSTED (HTTP 429). */
export const limitErrors = {
  /** Retry-After: 1 s while executions in flight hold part of the quota (a refund may free it), else 60 s. */
  quota: (remaining: string, needed: string, retryAfterSeconds: number) =>
    AppError.exhausted(`insufficient quota: the key has ${remaining} remaining and this execution needs ${needed}`, { limit: 'quota', retryAfterSeconds }),
  rpm: (limit: number, retryAfterSeconds: number) =>
    AppError.exhausted(`rate limit exceeded: this key allows ${limit} requests per minute`, { limit: 'rpm', retryAfterSeconds }),
  concurrency: (limit: number) =>
    AppError.exhausted(`concurrency limit exceeded: this key allows ${limit} executions at once`, { limit: 'concurrency', retryAfterSeconds: 1 }),
};

/** PostgreSQL unique violation (23505), as Prisma reports it from a raw query or a model call. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; meta?: { code?: string }; message?: string };
  return e?.code === 'P2002' || e?.meta?.code === '23505' || /23505|unique constraint/i.test(e?.message ?? '');
}

/** PostgreSQL aborted the statement to break a deadlock (40P01); nothing it did was written. */
export const isDeadlock = (err: unknown): boolean => (err as { code?: string })?.code === '40P01';
