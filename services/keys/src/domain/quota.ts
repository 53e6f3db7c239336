import { AppError } from '@tollgate/kit';

/** Quota amounts: non-negative decimals with at most 6 fractional and 14 integer digits (NUMERIC(20,6)). */
export const QUOTA_PATTERN = /^\d{1,14}(\.\d{1,6})?$/;

const SCALE = 1_000_000n;

/** Decimal string → integer millionths, for exact comparison. */
export function toMicros(s: string): bigint {
  const negative = s.startsWith('-');
  const [int, frac = ''] = (negative ? s.slice(1) : s).split('.');
  const v = BigInt(int || '0') * SCALE + BigInt((frac + '000000').slice(0, 6));
  return negative ? -v : v;
}

/** Largest quota a key may be given: its JSON number (the spec's type for quota) stays exact. */
export const MAX_QUOTA = '999999999.999999';

export function quotaOrThrow(s: string): string {
  if (!QUOTA_PATTERN.test(s)) {
    throw AppError.field(['body', 'quota'], 'quota must be a number ≥ 0 with at most 6 decimal places', s.startsWith('-') ? 'greater_than_equal' : 'decimal_invalid');
  }
  if (toMicros(s) > toMicros(MAX_QUOTA)) throw AppError.field(['body', 'quota'], `quota must be at most ${MAX_QUOTA}`, 'less_than_equal');
  return s;
}

/** Canonical text of a decimal from the database (no trailing zeros). */
export function normalizeDecimal(s: string): string {
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}
