import { z } from 'zod';
import { INSTANT_RANGE_TEXT, instantMs, withinRange } from '@tollgate/kit';

/** A date alone, `YYYY-MM-DD` (a day in UTC). */
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** `created_from` / `created_to` of the task list: an ISO 8601 timestamp with an offset, or a date alone (UTC). */
export const createdBound = (edge: 'from' | 'to') =>
  z
    .union([z.iso.datetime({ offset: true }), z.iso.date()])
    .refine((v) => instantMs(v) !== undefined, `a real calendar date ${INSTANT_RANGE_TEXT}`)
    .optional()
    .describe(
      edge === 'from'
        ? 'inclusive; an ISO 8601 timestamp, or a date YYYY-MM-DD meaning that day’s start (00:00 UTC)'
        : 'exclusive; an ISO 8601 timestamp, or a date YYYY-MM-DD meaning the end of that day (the next day’s 00:00 UTC), so the whole day is included',
    );

/**
 * The instant a bound stands for: a timestamp as sent; a date alone is 00:00 UTC of that day for
 * `from`, and 00:00 UTC of the next day for `to` (exclusive, so `to` = `from` = a date lists that day).
 * '' when absent.
 */
export function boundInstant(value: string | undefined, edge: 'from' | 'to'): string {
  if (value === undefined) return '';
  if (!DATE_ONLY.test(value)) return value;
  const start = Date.parse(`${value}T00:00:00.000Z`);
  return withinRange(edge === 'to' ? start + 86_400_000 : start).toISOString();
}
