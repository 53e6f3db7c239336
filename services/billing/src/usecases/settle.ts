import { AppError } from '@tollgate/kit';
import { Decimal, isDecimalText, moneyText } from '../domain/money';
import { chargeFor } from '../domain/prices';
import type { AdmissionRepo } from '../repo/admission-repo';

export type Outcome = 'charge' | 'refund';

export interface SettleCommand {
  taskNumber: string;
  outcome: string;
  /** Consumed (or, after a client disconnect, delivered) units; fixed prices ignore them. */
  units: { inputTokens: number; outputTokens: number; seconds: string };
}

export interface Settled {
  charged: string;
  alreadySettled: boolean;
  state: 'charged' | 'refunded';
}

function validate(c: SettleCommand): Outcome {
  if (!c.taskNumber) throw AppError.field(['task_number'], 'is required');
  if (c.outcome !== 'charge' && c.outcome !== 'refund') throw AppError.field(['outcome'], 'must be "charge" or "refund"');
  if (c.units.inputTokens < 0 || c.units.outputTokens < 0) throw AppError.field(['units'], 'token counts must not be negative');
  if (c.units.seconds !== '' && !isDecimalText(c.units.seconds)) throw AppError.field(['units', 'seconds'], 'must be a non-negative decimal');
  return c.outcome;
}

/** Turns an admission into a charge or a refund, once: a repeated call reports the first settlement. */
export async function settle(deps: { admissions: AdmissionRepo }, c: SettleCommand): Promise<Settled> {
  const outcome = validate(c);
  const admission = await deps.admissions.find(c.taskNumber);
  if (!admission) throw AppError.notFound(`no admission for task ${c.taskNumber}`);
  if (admission.state === 'open') {
    const amount =
      outcome === 'charge'
        ? chargeFor(admission.prices, { inputTokens: c.units.inputTokens, outputTokens: c.units.outputTokens, seconds: new Decimal(c.units.seconds || 0) })
        : new Decimal(0);
    if (await deps.admissions.settle(c.taskNumber, outcome, amount)) {
      return { charged: moneyText(amount), alreadySettled: false, state: outcome === 'charge' ? 'charged' : 'refunded' };
    }
  }
  const settled = (await deps.admissions.find(c.taskNumber))!;
  return { charged: moneyText(settled.charged ?? 0), alreadySettled: true, state: settled.state === 'charged' ? 'charged' : 'refunded' };
}
