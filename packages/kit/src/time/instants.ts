import { AppError } from '../errors/app-error';

/**
 * Dates and instants the public API takes: real calendar dates (`2026-02-30` is refused, not
 * moved to March) from 1970-01-01 to 9999-12-31, so that every one is a timestamp the databases
 * store. Used by the gateway's schemas and, as the services' own boundary, by the services.
 */
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const EARLIEST_MS = Date.UTC(1970, 0, 1);
/** The first instant after the supported range (10000-01-01). */
const END_OF_RANGE_MS = Date.UTC(9999, 11, 31) + 86_400_000;
export const INSTANT_RANGE_TEXT = 'between 1970-01-01 and 9999-12-31';

/** Whether `YYYY-MM-DD` names a day that exists (the year's month has that many days). */
function isCalendarDate(text: string): boolean {
  const m = DATE_ONLY.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** Milliseconds of a date `YYYY-MM-DD` (its 00:00 UTC) or an ISO 8601 instant inside the supported range; undefined otherwise. */
export function instantMs(text: string): number | undefined {
  const day = /^\d{4}-\d{2}-\d{2}/.exec(text)?.[0];
  if (day === undefined || !isCalendarDate(day)) return undefined;
  const ms = Date.parse(DATE_ONLY.test(text) ? `${text}T00:00:00Z` : text);
  return Number.isNaN(ms) || ms < EARLIEST_MS || ms >= END_OF_RANGE_MS ? undefined : ms;
}

/** A date `YYYY-MM-DD` that exists, within the supported range. */
export const isSupportedDate = (text: string): boolean => DATE_ONLY.test(text) && instantMs(text) !== undefined;

/** `ms` kept inside the supported range: the day after 9999-12-31 becomes its last millisecond. */
export function withinRange(ms: number): Date {
  return new Date(Math.min(Math.max(ms, EARLIEST_MS), END_OF_RANGE_MS - 1));
}

/** The instant of a request field (a date or an ISO 8601 instant), or a 422 at `loc`. */
export function instantField(text: string, loc: string[]): Date {
  const ms = instantMs(text);
  if (ms === undefined) throw AppError.field(loc, `${loc[loc.length - 1]}: must be a date YYYY-MM-DD or an ISO 8601 instant, a real calendar date ${INSTANT_RANGE_TEXT}`, 'datetime');
  return new Date(ms);
}
