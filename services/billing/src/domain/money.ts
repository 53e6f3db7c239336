import { Prisma } from '../generated/prisma/client';

export const Decimal = Prisma.Decimal;
export type Decimal = Prisma.Decimal;
export type DecimalValue = string | number | Prisma.Decimal;

/** Amounts are stored with 6 decimal places; everything is rounded to that once. */
export const SCALE = 6;

const DECIMAL_TEXT = /^\d{1,14}(\.\d{1,6})?$/;

/** The largest amount a money column (`numeric(20, 6)`) holds. */
export const MAX_AMOUNT_TEXT = '99999999999999.999999';
export const MAX_AMOUNT = new Decimal(MAX_AMOUNT_TEXT);

export function isDecimalText(text: string): boolean {
  return DECIMAL_TEXT.test(text);
}

export function money(value: DecimalValue): Decimal {
  return new Decimal(value).toDecimalPlaces(SCALE, Decimal.ROUND_HALF_UP);
}

/** Canonical text of an amount: no exponent, no trailing zeros ("1", "0.25"). */
export function moneyText(value: DecimalValue): string {
  return money(value).toFixed();
}
