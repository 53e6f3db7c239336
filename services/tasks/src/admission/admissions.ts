import { BillingLink, type GrpcClient, type Logger } from '@tollgate/kit';
import type { BillingClient } from '@tollgate/protos/billing';
import type { Payer } from '@tollgate/protos/tasks';
import { refundOf, settlementOf, type Settlement } from '../domain/settlement';
import type { Actor, TaskRecord } from '../domain/types';

export interface AdmissionSettings {
  /** Lease of each admission; renewed at a third of it while this replica works on the execution. */
  leaseSeconds: number;
  /** A settlement waits at most this long for an admission to ride along with (default 10 ms). */
  settleLingerMs?: number;
}

const RENEW_BATCH = 1_000;
const DEFAULT_SETTLE_LINGER_MS = 10;

/** One execution to admit; `deadline`: its caller's (ms since the epoch), if it has one. */
export interface Admittance {
  kind: string;
  appId: string;
  taskNumber: string;
  maxTokens?: number;
  deadline?: number;
}

/**
 * This replica's side of billing: admits executions (before anything runs) and settles each one by
 * its task's outcome over one ordered BillingLink (a settlement rides along with the next
 * admission, applied before it), and renews the leases of the admissions whose executions it is
 * working on, in one batched call per period.
 */
export class Admissions {
  private readonly held = new Set<string>();
  private readonly link: BillingLink;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly billing: GrpcClient<BillingClient>,
    private readonly settings: AdmissionSettings,
    private readonly log: Logger,
  ) {
    this.link = new BillingLink(billing, { settleLingerMs: settings.settleLingerMs ?? DEFAULT_SETTLE_LINGER_MS });
  }

  /**
   * Reserves quota, rate and concurrency for one execution: 429 when refused, 503 when billing is at
   * capacity (see BillingLink.admit). An admission whose outcome is unknown is never renewed by
   * this replica, and the reconciliation refunds it (no task will ever exist for its task number).
   */
  async admit(actor: Actor, payer: Payer, e: Admittance): Promise<void> {
    await this.link.admit({
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
    }, e.deadline);
    this.held.add(e.taskNumber);
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

  /**
   * Settles by the task's final state (see domain/settlement.ts); resolves once billing answered
   * the call that carried it, which may take until the next admission (or the linger), or ~30 s
   * of retries while billing is away: callers hand it over (`void`) rather than wait. Never
   * throws: a settlement that failed is logged, its admission keeps its lease, and once that runs
   * out the reconciler settles it by its task.
   */
  settleTask(task: TaskRecord): Promise<void> {
    return this.settle([settlementOf(task)]);
  }

  /** Refunds an admission whose execution never produced a task. Never throws. */
  refund(taskNumber: string): Promise<void> {
    return this.settle([refundOf(taskNumber)]);
  }

  async settle(items: Settlement[]): Promise<void> {
    const sent = await Promise.allSettled(items.map((settle) => this.link.settle(settle)));
    const failed = sent.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) this.log.warn({ err: failed.reason, count: items.length }, 'settlement failed; the admissions are settled by their task once their lease runs out');
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

  /** Stops renewing, sends the settlements still waiting for a ride, and closes the link. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.link.flush();
    this.billing.close();
  }
}

