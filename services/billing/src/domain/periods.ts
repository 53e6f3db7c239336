import { AppError } from '@tollgate/kit';

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
export const MAX_USAGE_RANGE_DAYS = 366;

/** `YYYY-MM` → [start, end) in UTC. */
export function monthRange(month: string): { start: Date; end: Date } {
  const m = MONTH.exec(month);
  if (!m) throw AppError.field(['month'], 'must be YYYY-MM');
  const year = Number(m[1]);
  const index = Number(m[2]) - 1;
  return { start: new Date(Date.UTC(year, index, 1)), end: new Date(Date.UTC(year, index + 1, 1)) };
}

function parseInstant(text: string, field: string): Date {
  const d = new Date(DATE_ONLY.test(text) ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(d.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(text)) throw AppError.field([field], 'must be an ISO 8601 date (YYYY-MM-DD) or date-time');
  return d;
}

/** A usage range: `from` inclusive (default: start of this UTC month), `to` exclusive (default: start of tomorrow, UTC). */
export function usageRange(from: string, to: string, now = new Date()): { from: Date; to: Date } {
  const start = from ? parseInstant(from, 'from') : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = to ? parseInstant(to, 'to') : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  if (end <= start) throw AppError.field(['to'], 'must be after from');
  if (end.getTime() - start.getTime() > MAX_USAGE_RANGE_DAYS * DAY_MS) throw AppError.field(['to'], `the range may span at most ${MAX_USAGE_RANGE_DAYS} days`);
  return { from: start, to: end };
}

export const currentMonth = (now = new Date()) => now.toISOString().slice(0, 7);
