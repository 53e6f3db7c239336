import { AppError, Coalescer, CoalescerTimeout, fromItemError, isAppError, msUntilDeadline, type GrpcClient, type Logger } from '@tollgate/kit';
import type { AdmitRequest, AdmitResult, BillingClient } from '@tollgate/protos/billing';
import type { Payer } from '@tollgate/protos/tasks';
import { refundOf, settlementOf, type Settlement } from '../domain/settlement';
import type { Actor, TaskRecord } from '../domain/types';
import { Settler } from './settler';

export interface AdmissionSettings {
  /** Lease of each admission; renewed at a third of it while this replica works on the execution. */
  leaseSeconds: number;
}

const RENEW_BATCH = 1_000;
/** An admission is one statement; billing taking longer than this (for a batch of them) is overloaded. */
const ADMIT_DEADLINE_MS = 5_000;
/** Admissions asked for while an AdmitBatch call is under way go out together in the next, up to this many. */
const ADMIT_BATCH = 200;
/** An admission gives up this long before its caller's deadline, so the caller hears 503, not a deadline. */
const DEADLINE_MARGIN_MS = 500;

/** One execution to admit; `deadline`: its caller's (ms since the epoch), if it has one. */
export interface Admittance {
  kind: string;
  appId: string;
  taskNumber: string;
  maxTokens?: number;
  deadline?: number;
}

/**
 * This replica's side of billing: admits executions (before anything runs; the admissions asked
 * for during one AdmitBatch call go out together in the next), settles each one by its task's
 * outcome through the coalescing settler, and renews the leases of the admissions whose
 * executions it is working on, in one batched call per period.
 */
export class Admissions {
  private readonly held = new Set<string>();
  private readonly settler: Settler;
  private readonly admitter: Coalescer<AdmitRequest, AdmitResult>;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly billing: GrpcClient<BillingClient>,
    private readonly settings: AdmissionSettings,
    private readonly log: Logger,
  ) {
    this.settler = new Settler(billing, log);
    this.admitter = new Coalescer(async (items) => (await billing.admitBatch({ items }, { timeoutMs: ADMIT_DEADLINE_MS })).items, ADMIT_BATCH);
  }

  /**
   * Reserves quota, rate and concurrency for one execution; RESOURCE_EXHAUSTED (429) when refused.
   * Billing not answering within ADMIT_DEADLINE_MS (or shortly before the caller's own deadline,
   * waiting for its batch included) is back-pressure: UNAVAILABLE with Retry-After (503). Whether
   * that admission was written is unknown; if it was, nobody renews its lease and the
   * reconciliation refunds it (no task will ever exist for its task number).
   */
  async admit(actor: Actor, payer: Payer, e: Admittance): Promise<void> {
    try {
      await this.request(actor, payer, e);
    } catch (err) {
      if (
        err instanceof CoalescerTimeout ||
        (isAppError(err) && (err.code === 'DEADLINE_EXCEEDED' || (err.code === 'UNAVAILABLE' && err.details.retryAfterSeconds === undefined)))
      ) {
        throw new AppError('UNAVAILABLE', 'billing is at capacity; try again shortly', { retryAfterSeconds: 1 });
      }
      throw err;
    }
    this.held.add(e.taskNumber);
  }

  private async request(actor: Actor, payer: Payer, e: Admittance): Promise<void> {
    const waitMs = Math.min(ADMIT_DEADLINE_MS, msUntilDeadline(e.deadline) - DEADLINE_MARGIN_MS);
    if (waitMs <= 0) throw new CoalescerTimeout(false);
    const result = await this.admitter.submit({
      apiKeyId: actor.apiKeyId,
      accountId: actor.accountId,
      level: payer.level,
      quota: payer.quota,
      rpmLimit: payer.rpmLimit,
      concurrencyLimit: payer.concurrencyLimit,
      kind: e.kind,
      appId: e.appId,
      taskNumber: e.taskNumber,
      basis: '',
      estimatedInputTokens: 0,
      estimatedOutputTokens: Math.max(0, Math.ceil(e.maxTokens ?? 0)),
      estimatedSeconds: 0,
      leaseSeconds: this.settings.leaseSeconds,
    }, waitMs);
    if (!result.admitted) throw fromItemError({ code: result.errorCode, message: result.errorMessage, details: result.errorDetails });
  }

  /** This replica works on the admitted execution (a worker's claim): keep its lease alive. */
  hold(taskNumber: string): void {
    this.held.add(taskNumber);
  }

  /** This replica no longer works on it (an async task now waits in the table; the reconciler watches it). */
  release(taskNumber: string): void {
    this.held.delete(taskNumber);
  }

  holds(taskNumber: string): boolean {
    return this.held.has(taskNumber);
  }

  /** Settles by the task's final state (see domain/settlement.ts). Never throws. */
  settleTask(task: TaskRecord): Promise<void> {
    return this.settle([settlementOf(task)]);
  }

  /** Refunds an admission whose execution never produced a task. Never throws. */
  refund(taskNumber: string): Promise<void> {
    return this.settle([refundOf(taskNumber)]);
  }

  async settle(items: Settlement[]): Promise<void> {
    await this.settler.settle(items);
    for (const i of items) this.held.delete(i.taskNumber);
  }

  /** Extends the leases of `taskNumbers` (every held one when omitted). */
  async renew(taskNumbers: string[] = [...this.held]): Promise<void> {
    for (let i = 0; i < taskNumbers.length; i += RENEW_BATCH) {
      await this.billing.renewAdmissions({ taskNumbers: taskNumbers.slice(i, i + RENEW_BATCH), leaseSeconds: this.settings.leaseSeconds });
    }
  }

  start(): void {
    this.timer = setInterval(
      () => void this.renew().catch((err: unknown) => this.log.warn({ err }, 'renewing admission leases failed')),
      Math.max(100, (this.settings.leaseSeconds * 1000) / 3),
    );
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.billing.close();
  }
}

