import { z } from 'zod';
import './route-book';

/**
 * Numbers of form fields and query strings: what a person writes in decimal, nothing JavaScript's
 * Number() would also take (`0x10`, `0b11`, `1e3`, ` 7 `, `+7`, `Infinity`). A JSON number is
 * accepted where a body may be JSON.
 */
const DIGITS = /^\d{1,16}$/;

/** The largest value of the int32 fields services take over gRPC: a bigger number is a 422 here, never an encoding error there. */
export const INT32_MAX = 2_147_483_647;
const DECIMAL = /^\d{1,16}(\.\d{1,16})?$/;

/** A whole number written in decimal digits only (string) or a JSON integer, within [min, max]. */
export function decimalInt(min: number, max: number) {
  return z
    .union([z.number(), z.string().regex(DIGITS, 'must be a whole number written in decimal digits (0-9) only').transform(Number)])
    .pipe(z.number().int().min(min).max(max))
    .openapi({ type: 'integer', minimum: min, maximum: max });
}

/** A non-negative decimal number written as digits with an optional fraction (`12`, `12.5`), or a JSON number. */
export function plainDecimal(description: string) {
  return z
    .union([z.number().nonnegative(), z.string().regex(DECIMAL, 'must be a plain decimal number such as 12 or 12.5 (digits, one optional point)')])
    .openapi({ description });
}
