import { AppError, ErrorCode, type HotQueryOptions } from '@tollgate/kit';
import type { LevelLimits } from '../config';
import { effectiveLimits } from '../domain/limits';
import { Decimal, isDecimalText, moneyText } from '../domain/money';
import { BASES, PRICED_KINDS, reservationFor, snapshotOf, type Estimate } from '../domain/prices';
import { isUniqueViolation, limitErrors } from '../errors';
import type { PriceCache } from '../repo/price-cache';
import type { UsageRepo, UsageState } from '../repo/usage-repo';

export interface AdmitCommand {
  apiKeyId: number;
  accountId: number;
  kind: string;
  appId: string;
  taskNumber: string;
  /** '' = unlimited */
  quota: string;
  rpmLimit: number;
  concurrencyLimit: number;
  basis: string;
  level: string;
  estimate: Estimate;
  /** > 0: lease of the admission, renewed while the execution runs (tasks service); 0 = none. */
  leaseSeconds?: number;
}

export interface AdmitDeps {
  usage: UsageRepo;
  prices: PriceCache;
  limits: LevelLimits;
}

export interface Admitted {
  reserved: string;
  remaining: string;
  basis: string;
}

const MAX_ATTEMPTS = 5;

function validate(c: AdmitCommand): void {
  const bad = (field: string, msg: string) => AppError.field([field], msg);
  if (!(c.apiKeyId > 0)) throw bad('api_key_id', 'must be a positive key id');
  if (!(c.accountId > 0)) throw bad('account_id', 'must be a positive account id');
  if (!(PRICED_KINDS as readonly string[]).includes(c.kind)) throw bad('kind', `must be one of ${PRICED_KINDS.join(', ')}`);
  if (!c.taskNumber || c.taskNumber.length > 128) throw bad('task_number', 'must be 1 to 128 characters');
  if (c.quota !== '' && !isDecimalText(c.quota)) throw bad('quota', 'must be a non-negative decimal or empty (unlimited)');
  if (c.basis !== '' && !(BASES as readonly string[]).includes(c.basis)) throw bad('basis', `must be one of ${BASES.join(', ')}`);
  if (c.rpmLimit < 0 || c.concurrencyLimit < 0) throw bad('rpm_limit', 'limits must not be negative');
  if (c.leaseSeconds !== undefined && !(c.leaseSeconds >= 0 && c.leaseSeconds <= 86_400)) throw bad('lease_seconds', 'between 0 and 86400');
  const { inputTokens, outputTokens, seconds } = c.estimate;
  if (inputTokens < 0 || outputTokens < 0 || seconds < 0) throw bad('estimate', 'estimates must not be negative');
}

/** Which limit refused an admission, judged from the row as it is now; undefined when none does (a race: try again). */
function refusal(state: UsageState, quota: Decimal | null, reservation: Decimal, limits: { rpm: number; concurrency: number }): AppError | undefined {
  const committed = state.usedQuota.plus(state.reserved);
  if (quota && (committed.plus(reservation).gt(quota) || (reservation.isZero() && committed.gte(quota)))) {
    return limitErrors.quota(moneyText(Decimal.max(quota.minus(committed), 0)), moneyText(reservation), state.reserved.gt(0) ? 1 : 60);
  }
  if (state.rpmCount >= limits.rpm) return limitErrors.rpm(limits.rpm, Math.min(60, Math.max(1, Math.ceil(state.minuteEndsAt - Date.now() / 1000))));
  if (state.inFlight >= limits.concurrency) return limitErrors.concurrency(limits.concurrency);
  return undefined;
}

/**
 * Admits one execution: reserves its price against the key's quota and takes rpm and concurrency
 * capacity, atomically, in one statement (prices from the in-memory cache). Only a refusal reads
 * the key's row again, to name the limit. `options.deadline`: the caller's, so a saturated pool
 * refuses in time (UNAVAILABLE) instead of outliving the call.
 */
export async function admit(deps: AdmitDeps, c: AdmitCommand, options: HotQueryOptions = {}): Promise<Admitted> {
  validate(c);
  const rows = (await deps.prices.forKind(c.kind)).filter((p) => c.basis === '' || p.basis === c.basis);
  if (rows.length === 0) throw new AppError(ErrorCode.FailedPrecondition, `no price is set for ${c.kind}${c.basis ? ` by ${c.basis}` : ''}`);
  const prices = snapshotOf(rows);
  const reservation = reservationFor(prices, c.estimate);
  const quota = c.quota === '' ? null : new Decimal(c.quota);
  const limits = effectiveLimits(deps.limits, c.level, c);

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    let admitted;
    try {
      admitted = await deps.usage.tryAdmit({ ...c, quota: quota ? quota.toFixed() : null, reservation, prices, ...limits, leaseSeconds: c.leaseSeconds ?? 0 }, options);
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError(ErrorCode.AlreadyExists, `task ${c.taskNumber} was already admitted`);
      throw err;
    }
    if (admitted) {
      const remaining = quota ? moneyText(quota.minus(admitted.usedQuota).minus(admitted.reserved)) : '';
      return { reserved: moneyText(reservation), remaining, basis: prices.basis };
    }
    const state = (await deps.usage.find(c.apiKeyId)) ?? { apiKeyId: c.apiKeyId, accountId: c.accountId, usedQuota: new Decimal(0), reserved: new Decimal(0), inFlight: 0, rpmCount: 0, minuteEndsAt: 0 };
    const refused = refusal(state, quota, reservation, limits);
    if (refused) throw refused;
  }
  throw new AppError(ErrorCode.Unavailable, 'admission kept racing with other executions of this key; try again');
}

/** Most admissions one AdmitBatch call may carry. */
export const MAX_ADMIT_BATCH = 500;

export type AdmitOutcome = { taskNumber: string; admitted: Admitted } | { taskNumber: string; refused: unknown };

/**
 * Admits many executions, each decided on its own exactly as `admit` decides one (its own
 * statement; items of one key queue on that key's row as separate calls would).
 */
export async function admitBatch(deps: AdmitDeps, commands: AdmitCommand[], options: HotQueryOptions = {}): Promise<AdmitOutcome[]> {
  if (commands.length > MAX_ADMIT_BATCH) throw AppError.field(['items'], `at most ${MAX_ADMIT_BATCH} admissions per call`, 'size');
  return Promise.all(
    commands.map((c) =>
      admit(deps, c, options).then(
        (admitted) => ({ taskNumber: c.taskNumber, admitted }),
        (refused: unknown) => ({ taskNumber: c.taskNumber, refused }),
      ),
    ),
  );
}
