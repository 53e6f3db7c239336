import { z } from 'zod';
import { INSTANT_RANGE_TEXT, instantMs, isSupportedDate } from '@tollgate/kit';

/** A date `YYYY-MM-DD` that exists, between 1970-01-01 and 9999-12-31. */
export const calendarDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date YYYY-MM-DD').refine(isSupportedDate, `a real calendar date ${INSTANT_RANGE_TEXT}`);

/** A date `YYYY-MM-DD` (its 00:00 UTC) or an ISO 8601 instant, a real calendar date between 1970-01-01 and 9999-12-31. */
export const instantText = z
  .string()
  .max(40)
  .refine((v) => instantMs(v) !== undefined, `a date YYYY-MM-DD or an ISO 8601 instant, a real calendar date ${INSTANT_RANGE_TEXT}`);
