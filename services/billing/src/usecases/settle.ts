import { AppError } from '@tollgate/kit';
import { isDecimalText, moneyText } from '../domain/money';
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

export interface SettleResult extends Settled {
  taskNumber: string;
  /** False: billing has no admission of this task number. */
  found: boolean;
}

export const MAX_SETTLE_BATCH = 1_000;

function validate(c: SettleCommand): Outcome {
  if (!c.taskNumber) throw AppError.field(['task_number'], 'is required');
  if (c.outcome !== 'charge' && c.outcome !== 'refund') throw AppError.field(['outcome'], 'must be "charge" or "refund"');
  if (c.units.inputTokens < 0 || c.units.outputTokens < 0) throw AppError.field(['units'], 'token counts must not be negative');
  if (c.units.seconds !== '' && !isDecimalText(c.units.seconds)) throw AppError.field(['units', 'seconds'], 'must be a non-negative decimal');
  return c.outcome;
}

/**
 * Turns admissions into charges or refunds, each once, in one statement: a repeated settlement
 * reports the first one. The only settlement path of billing (tasks settle their executions by
 * their outcome; the gateway settles its provider passthrough calls).
 */
export async function settleBatch(deps: { admissions: AdmissionRepo }, commands: SettleCommand[]): Promise<SettleResult[]> {
  if (commands.length > MAX_SETTLE_BATCH) throw AppError.field(['items'], `at most ${MAX_SETTLE_BATCH} settlements per call`, 'size');
  const byNumber = new Map<string, SettleCommand & { outcome: Outcome }>();
  for (const c of commands) if (!byNumber.has(c.taskNumber)) byNumber.set(c.taskNumber, { ...c, outcome: validate(c) });
  const rows = await deps.admissions.settleMany(
    [...byNumber.values()].map((c) => ({ taskNumber: c.taskNumber, outcome: c.outcome, inputTokens: Math.floor(c.units.inputTokens), outputTokens: Math.floor(c.units.outputTokens), seconds: c.units.seconds })),
  );
  return commands.map((c) => {
    const row = rows.get(c.taskNumber);
    if (!row) return { taskNumber: c.taskNumber, found: false, charged: '0', alreadySettled: false, state: 'refunded' };
    return {
      taskNumber: c.taskNumber,
      found: true,
      charged: moneyText(row.charged),
      alreadySettled: !row.settledNow,
      state: row.state === 'charged' ? 'charged' : 'refunded',
    };
  });
}

/** One settlement; NOT_FOUND when the task number was never admitted. */
export async function settle(deps: { admissions: AdmissionRepo }, c: SettleCommand): Promise<Settled> {
  const [r] = await settleBatch(deps, [c]);
  if (!r.found) throw AppError.notFound(`no admission for task ${c.taskNumber}`);
  return { charged: r.charged, alreadySettled: r.alreadySettled, state: r.state };
}
