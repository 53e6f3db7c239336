import { AppError } from '@tollgate/kit';

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
const DATE_PREFIX = /^(\d{4})-(\d{2})-(\d{2})/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
export const MIN_YEAR = 1970;
export const MAX_USAGE_RANGE_DAYS = 366;

/** `YYYY-MM` (year ≥ 1970) → [start, end) in UTC. */
export function monthRange(month: string): { start: Date; end: Date } {
  const m = MONTH.exec(month);
  if (!m) throw AppError.field(['path', 'month'], 'must be YYYY-MM');
  const year = Number(m[1]);
  if (year < MIN_YEAR) throw AppError.field(['path', 'month'], `the year must be ${MIN_YEAR} or later`);
  const index = Number(m[2]) - 1;
  return { start: new Date(Date.UTC(year, index, 1)), end: new Date(Date.UTC(year, index + 1, 1)) };
}

/** True when `YYYY-MM-DD` names a day that exists (no 02-31 rolling over into March). */
function isCalendarDate(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

function parseInstant(text: string, field: string): Date {
  const invalid = () => AppError.field(['query', field], 'must be an ISO 8601 date (YYYY-MM-DD) or date-time');
  const m = DATE_PREFIX.exec(text);
  if (!m) throw invalid();
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!isCalendarDate(year, month, day)) throw AppError.field(['query', field], `${m[0]} is not a date that exists`);
  if (year < MIN_YEAR) throw AppError.field(['query', field], `the year must be ${MIN_YEAR} or later`);
  const d = new Date(DATE_ONLY.test(text) ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(d.getTime())) throw invalid();
  return d;
}

/** A usage range: `from` inclusive (default: start of this UTC month), `to` exclusive (default: start of tomorrow, UTC). */
export function usageRange(from: string, to: string, now = new Date()): { from: Date; to: Date } {
  const start = from ? parseInstant(from, 'from') : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = to ? parseInstant(to, 'to') : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  if (end <= start) throw AppError.field(['query', 'to'], 'must be after from');
  if (end.getTime() - start.getTime() > MAX_USAGE_RANGE_DAYS * DAY_MS) throw AppError.field(['query', 'to'], `the range may span at most ${MAX_USAGE_RANGE_DAYS} days`);
  return { from: start, to: end };
}

export const currentMonth = (now = new Date()) => now.toISOString().slice(0, 7);
