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
/** Billing's largest settlement batch, and its longest list of finishing executions. */
const MAX_SETTLEMENTS_PER_CALL = 1_000;
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
 * along, it goes second: the admissions are decided first, naming every settlement handed over and
 * not yet answered as `finishing` (billing counts their concurrency slots free), and answered at
 * once; the settlements go to billing in calls of their own, one at a time, each carrying all that
 * waits. So a key's slot is free for its next request as soon as the answer went back, and no
 * admission waits for a settlement's commit. An admission refused for quota while settlements were
 * finishing is decided again once they are applied (a settlement may charge less than was reserved).
 */
export class BillingLink {
  private readonly calls: Coalescer<Item, Answer | Promise<Answer>>;
  private readonly settlements: Coalescer<SettleRequest, SettleResult>;
  /** Settlements handed to `settlements` and not answered yet (counted per task number). */
  private readonly finishing = new Map<string, number>();

  constructor(
    private readonly billing: GrpcClient<BillingClient>,
    private readonly options: BillingLinkOptions,
  ) {
    this.calls = new Coalescer((items) => this.send(items), BILLING_BATCH);
    this.settlements = new Coalescer(async (items) => (await this.call([], items, [])).settlements, MAX_SETTLEMENTS_PER_CALL);
  }

  private async send(items: Item[]): Promise<Array<Answer | Promise<Answer>>> {
    const admissions = items.flatMap((i) => ('admit' in i ? [i.admit] : []));
    const riding = items.flatMap((i) => ('settle' in i ? [i.settle] : []));
    const finishing = [...riding.map((s) => s.taskNumber), ...this.finishing.keys()].slice(0, MAX_SETTLEMENTS_PER_CALL);
    let decided: AdmitResult[] = [];
    let failed: { err: unknown } | undefined;
    if (admissions.length > 0) {
      try {
        decided = (await this.call(admissions, [], finishing)).items;
      } catch (err) {
        failed = { err };
      }
    }
    // Handed over whatever became of the admissions: an execution that ended is settled either way.
    const settled = riding.map((s) => this.applyLater(s));
    if (failed) {
      const { err } = failed;
      let s = 0;
      return items.map((i) => ('settle' in i ? settled[s++].then((r) => ({ settled: r })) : Promise.reject(err)));
    }
    const again = finishing.length === 0 ? [] : decided.flatMap((r, i) => (refusedForQuota(r) ? [i] : []));
    // Not decided again (the call failed): the first refusal stands.
    const redecided = again.length === 0 ? undefined : this.settlements.flush().then(() => this.call(again.map((i) => admissions[i]), [], [])).catch(() => undefined);
    const admitted: Array<AdmitResult | Promise<AdmitResult>> = [...decided];
    again.forEach((i, n) => (admitted[i] = redecided!.then((a) => a?.items[n] ?? decided[i])));
    let a = 0;
    let s = 0;
    return items.map((i) => {
      if ('settle' in i) return settled[s++].then((r) => ({ settled: r }));
      const r = admitted[a++];
      return r instanceof Promise ? r.then((admitted) => ({ admitted })) : { admitted: r };
    });
  }

  /** Hands a settlement to the settlement calls; it counts as finishing until billing answered it. */
  private applyLater(request: SettleRequest): Promise<SettleResult> {
    const n = request.taskNumber;
    this.finishing.set(n, (this.finishing.get(n) ?? 0) + 1);
    return this.settlements.submit(request).finally(() => {
      const left = this.finishing.get(n)! - 1;
      if (left > 0) this.finishing.set(n, left);
      else this.finishing.delete(n);
    });
  }

  private async call(items: AdmitRequest[], settlements: SettleRequest[], finishing: string[]): Promise<{ items: AdmitResult[]; settlements: SettleResult[] }> {
    const answer = await this.billing.admitBatch({ items, settlements, finishing }, { timeoutMs: ADMIT_DEADLINE_MS });
    if (answer.items.length !== items.length || answer.settlements.length !== settlements.length) {
      throw new Error(`billing answered ${answer.items.length} of ${items.length} admissions and ${answer.settlements.length} of ${settlements.length} settlements`);
    }
    return answer;
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
    await this.settlements.flush();
  }
}
