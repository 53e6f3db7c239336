import { AppError, ErrorCode, INSTANT_RANGE_TEXT, instantMs } from '@tollgate/kit';
import { parseIso } from '../domain/time14';

/** '' or undefined → no end; otherwise an ISO 8601 date or date-time. */
export function validUntilOf(value: string | undefined): Date | null {
  if (!value) return null;
  const d = parseIso(value);
  if (!d || instantMs(value) === undefined) throw AppError.field(['body', 'valid_until'], `valid_until must be an ISO 8601 date or date-time (e.g. 2027-01-31T00:00:00Z), a real calendar date ${INSTANT_RANGE_TEXT}`, 'datetime_invalid');
  return d;
}

export function emailTaken(): AppError {
  return new AppError(ErrorCode.AlreadyExists, 'a user with this email already exists', { issues: [{ loc: ['body', 'email'], msg: 'email already used', type: 'unique' }] });
}
