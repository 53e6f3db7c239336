import { TASK_KINDS } from '@tollgate/kit';
import { Decimal, money } from './money';

export const PRICED_KINDS = [...TASK_KINDS, 'passthrough'] as const;
export type PricedKind = (typeof PRICED_KINDS)[number];

export const BASES = ['per_execution', 'per_request', 'per_input_token', 'per_output_token', 'per_second'] as const;
export type Basis = (typeof BASES)[number];

export interface PriceRow {
  kind: string;
  basis: string;
  unitPrice: Decimal;
}

/** The prices an admission is charged by, frozen at admission time. */
export interface PriceSnapshot {
  basis: string;
  fixed: Decimal;
  inputToken: Decimal;
  outputToken: Decimal;
  second: Decimal;
}

export interface Estimate {
  inputTokens: number;
  outputTokens: number;
  seconds: number;
}

export interface Consumed {
  inputTokens: number;
  outputTokens: number;
  seconds: Decimal;
}

/** A kind is charged the sum of all its prices (or only `basis` when the caller names one). */
export function snapshotOf(rows: PriceRow[]): PriceSnapshot {
  const of = (...bases: Basis[]) => rows.filter((r) => (bases as string[]).includes(r.basis)).reduce((sum, r) => sum.plus(r.unitPrice), new Decimal(0));
  return {
    basis: rows.map((r) => r.basis).sort().join('+'),
    fixed: of('per_execution', 'per_request'),
    inputToken: of('per_input_token'),
    outputToken: of('per_output_token'),
    second: of('per_second'),
  };
}

export function reservationFor(p: PriceSnapshot, e: Estimate): Decimal {
  return money(p.fixed.plus(p.inputToken.times(e.inputTokens)).plus(p.outputToken.times(e.outputTokens)).plus(p.second.times(e.seconds)));
}

export function chargeFor(p: PriceSnapshot, c: Consumed): Decimal {
  return money(p.fixed.plus(p.inputToken.times(c.inputTokens)).plus(p.outputToken.times(c.outputTokens)).plus(p.second.times(c.seconds)));
}
