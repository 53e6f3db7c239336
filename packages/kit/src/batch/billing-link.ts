import type { AdmitRequest, AdmitResponse, AdmitResult, BillingClient, SettleRequest, SettleResult } from '@tollgate/protos/billing';
import { msUntilDeadline } from '../context/request-context';
import { AppError, isAppError } from '../errors/app-error';
import type { GrpcClient } from '../grpc/client';
import { fromItemError } from '../grpc/status-map';
import { Coalescer, CoalescerTimeout } from './coalescer';

export interface BillingLinkOptions {
  /** A settlement waits at most this long for an admission to ride along with (0: sent at once). */
  settleLingerMs: number;
}

/** An admission is one statement; billing taking longer than this (for a batch of them) is overloaded. */
const ADMIT_DEADLINE_MS = 5_000;
/** Admissions and settlements asked for while a call is under way go out together in the next, up to this many. */
const BILLING_BATCH = 200;
/** An admission gives up this long before its caller's deadline, so the caller hears 503, not a deadline. */
const DEADLINE_MARGIN_MS = 500;
/** A settlement that found billing away is sent again after each of these waits (about 30 s in all). */
const SETTLE_RETRY_DELAYS_MS = [250, 500, 1_000, 2_000, 4_000, 8_000, 15_000];

/** Billing was not reached or did not answer in time: the same (idempotent) settlement may be sent again. */
const billingAway = (err: unknown) => isAppError(err) && (err.code === 'UNAVAILABLE' || err.code === 'DEADLINE_EXCEEDED');
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

type Item = { admit: AdmitRequest } | { settle: SettleRequest };
type Answer = { admitted: AdmitResult } | { settled: SettleResult };

const atCapacity = () => new AppError('UNAVAILABLE', 'billing is at capacity; try again shortly', { retryAfterSeconds: 1 });
const refusedForQuota = (r: AdmitResult) => !r.admitted && fromItemError({ code: r.errorCode, message: r.errorMessage, details: r.errorDetails }).details.limit === 'quota';

/**
 * A caller's ordered link to billing's AdmitBatch: the admissions and settlements asked for while
 * one call is under way go out together in the next. A settlement does not start a call of its
 * own: it rides along with the next admissions, or goes alone after `settleLingerMs`. Riding
 * along with several admissions (under load), it is applied first in the same call. Riding along
 * with one, it goes second: the admission is decided first, with the ended executions named as
 * `finishing` (their concurrency slots are free), and answered; the settlements follow in a call
 * of their own, which the next batch waits for. So a key's slot is free for its next request as
 * soon as the answer went back, and a lone request does not wait for a settlement's commit. An
 * admission refused for quota while settlements were riding is decided again after them (a
 * settlement may charge less than was reserved).
 */
export class BillingLink {
  private readonly calls: Coalescer<Item, Answer | Promise<Answer>>;
  /** The settlements sent after the last batch's admissions: the next batch starts once they are applied. */
  private settling: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly billing: GrpcClient<BillingClient>,
    private readonly options: BillingLinkOptions,
  ) {
    this.calls = new Coalescer((items) => this.send(items), BILLING_BATCH);
  }

  private async send(items: Item[]): Promise<Array<Answer | Promise<Answer>>> {
    await this.settling;
    const admissions = items.flatMap((i) => ('admit' in i ? [i.admit] : []));
    const settlements = items.flatMap((i) => ('settle' in i ? [i.settle] : []));
    // Under load (several admissions) one call carries both, settlements applied first: fewer
    // calls per execution, and the batch's wait is already shared by many.
    if (admissions.length !== 1 || settlements.length === 0) {
      const answer = await this.call(admissions, settlements, []);
      return this.inOrder(items, answer.items, answer.settlements);
    }
    const decided = await this.call(admissions, [], settlements.map((s) => s.taskNumber));
    const settled = this.call([], settlements, []).then((a) => a.settlements);
    const again = decided.items.flatMap((r, i) => (refusedForQuota(r) ? [i] : []));
    // Not decided again (the settlements or the call failed): the first refusal stands.
    const redecided = again.length === 0 ? undefined : settled.then(() => this.call(again.map((i) => admissions[i]), [], [])).catch(() => undefined);
    this.settling = Promise.allSettled([settled, redecided]);
    const admitted: Array<AdmitResult | Promise<AdmitResult>> = [...decided.items];
    again.forEach((i, n) => (admitted[i] = redecided!.then((a) => a?.items[n] ?? decided.items[i])));
    return this.inOrder(items, admitted, settlements.map((_, n) => settled.then((all) => all[n])));
  }

  private async call(items: AdmitRequest[], settlements: SettleRequest[], finishing: string[]): Promise<{ items: AdmitResult[]; settlements: SettleResult[] }> {
    const answer = await this.billing.admitBatch({ items, settlements, finishing }, { timeoutMs: ADMIT_DEADLINE_MS });
    if (answer.items.length !== items.length || answer.settlements.length !== settlements.length) {
      throw new Error(`billing answered ${answer.items.length} of ${items.length} admissions and ${answer.settlements.length} of ${settlements.length} settlements`);
    }
    return answer;
  }

  private inOrder(items: Item[], admitted: Array<AdmitResult | Promise<AdmitResult>>, settled: Array<SettleResult | Promise<SettleResult>>): Array<Answer | Promise<Answer>> {
    let a = 0;
    let s = 0;
    const answer = <T, A>(r: T | Promise<T>, wrap: (r: T) => A) => (r instanceof Promise ? r.then(wrap) : wrap(r));
    return items.map((i) => ('admit' in i ? answer(admitted[a++], (admitted) => ({ admitted })) : answer(settled[s++], (settled) => ({ settled }))));
  }

  /**
   * Reserves quota, rate and concurrency for one execution (answers what was reserved);
   * RESOURCE_EXHAUSTED (429) when refused.
   * Billing not answering within ADMIT_DEADLINE_MS (or shortly before the caller's `deadline`,
   * waiting for its batch included) is back-pressure: UNAVAILABLE with Retry-After (503). Whether
   * that admission was written is then unknown; if it was, its lease runs out unrenewed and it is
   * refunded (by the reconciliation, or billing's sweep for a lease of 0).
   */
  async admit(request: AdmitRequest, deadline?: number): Promise<AdmitResponse> {
    const waitMs = Math.min(ADMIT_DEADLINE_MS, msUntilDeadline(deadline) - DEADLINE_MARGIN_MS);
    if (waitMs <= 0) throw atCapacity();
    let answer: Answer;
    try {
      answer = await this.calls.submit({ admit: request }, waitMs);
    } catch (err) {
      if (
        err instanceof CoalescerTimeout ||
        (isAppError(err) && (err.code === 'DEADLINE_EXCEEDED' || (err.code === 'UNAVAILABLE' && err.details.retryAfterSeconds === undefined)))
      ) {
        throw atCapacity();
      }
      throw err;
    }
    const result = (answer as { admitted: AdmitResult }).admitted;
    if (!result.admitted) throw fromItemError({ code: result.errorCode, message: result.errorMessage, details: result.errorDetails });
    return result.admitted;
  }

  /**
   * Charges or refunds an admission (idempotent by task number); resolves once billing applied it.
   * While billing is away (a restart) it is sent again, for about 30 s; then it rejects, and the
   * admission is left to its lease (the caller's reconciliation, or billing's sweep).
   * `now`: sent at once instead of waiting for a ride, for a caller that answers only after it.
   */
  async settle(request: SettleRequest, options: { now?: boolean } = {}): Promise<SettleResult> {
    const item = { settle: request };
    for (let attempt = 0; ; attempt += 1) {
      try {
        const answer = options.now ? this.calls.submit(item) : this.calls.defer(item, this.options.settleLingerMs);
        return ((await answer) as { settled: SettleResult }).settled;
      } catch (err) {
        const wait = SETTLE_RETRY_DELAYS_MS[attempt];
        if (wait === undefined || !billingAway(err)) throw err;
        await pause(wait);
      }
    }
  }

  /** Sends the settlements still waiting for a ride; resolves once billing answered. */
  async flush(): Promise<void> {
    await this.calls.flush();
    await this.settling;
  }
}
