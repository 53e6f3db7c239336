/**
 * Database failures that say "not now" rather than "wrong": the server is out of connections,
 * starting or stopping, unreachable, or the pool timed out. A caller may retry them (503), unlike
 * a bug (500).
 */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);
const PG_CODES = new Set(['53300', '53400', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);
const NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);
const MESSAGES = /too many (database connections|clients)|the database system is (starting up|shutting down)|timeout exceeded when trying to connect|Connection terminated unexpectedly/i;

export function isTransientDbError(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const e = err as { code?: unknown; meta?: { code?: unknown; driverAdapterError?: unknown }; cause?: unknown; message?: unknown; name?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code && (PRISMA_CODES.has(code) || PG_CODES.has(code))) return true;
  if (typeof e.meta?.code === 'string' && PG_CODES.has(e.meta.code)) return true;
  if (typeof e.name === 'string' && /^Prisma|DriverAdapterError/.test(e.name) && typeof e.message === 'string' && MESSAGES.test(e.message)) return true;
  if (code && NODE_CODES.has(code) && typeof e.message === 'string' && /connect|database|postgres/i.test(e.message)) return true;
  return isTransientDbError(e.cause, depth + 1) || isTransientDbError(e.meta?.driverAdapterError, depth + 1);
}
