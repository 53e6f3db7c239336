import { AppError, ErrorCode, type HotQueryOptions } from '@tollgate/kit';
import type { LevelLimits } from '../config';
import { effectiveLimits } from '../domain/limits';
import { Decimal, isDecimalText, MAX_AMOUNT, MAX_AMOUNT_TEXT, moneyText } from '../domain/money';
import { BASES, PRICED_KINDS, reservationFor, snapshotOf, type Estimate } from '../domain/prices';
import { isUniqueViolation, limitErrors } from '../errors';
import type { PriceCache } from '../repo/price-cache';
import type { AdmitInput, AdmittedUsage, UsageRepo, UsageState } from '../repo/usage-repo';
import { MAX_SETTLE_BATCH } from './settle';

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

/**
 * Which limit refused an admission, judged from the row as it is now (`finishing`: the key's open
 * admissions of ended executions, which hold no slot); undefined when none does (a race: try again).
 */
function refusal(state: UsageState, finishing: number, callersQuota: Decimal | null, reservation: Decimal, limits: { rpm: number; concurrency: number }): AppError | undefined {
  const quota = state.managedQuota !== undefined ? state.managedQuota : callersQuota;
  const committed = state.usedQuota.plus(state.reserved);
  if (quota && (committed.plus(reservation).gt(quota) || (reservation.isZero() && committed.gte(quota)))) {
    return limitErrors.quota(moneyText(Decimal.max(quota.minus(committed), 0)), moneyText(reservation), state.reserved.gt(0) ? 1 : 60);
  }
  if (state.rpmCount >= limits.rpm) return limitErrors.rpm(limits.rpm, Math.min(60, Math.max(1, Math.ceil(state.minuteEndsAt - Date.now() / 1000))));
  if (state.inFlight - finishing >= limits.concurrency) return limitErrors.concurrency(limits.concurrency);
  return undefined;
}

/** An admission checked and priced, ready for its statement. */
interface Prepared {
  command: AdmitCommand;
  input: AdmitInput;
  quota: Decimal | null;
  limits: { rpm: number; concurrency: number };
}

async function prepare(deps: AdmitDeps, c: AdmitCommand, finishing: string[]): Promise<Prepared> {
  validate(c);
  const rows = (await deps.prices.forKind(c.kind)).filter((p) => c.basis === '' || p.basis === c.basis);
  if (rows.length === 0) throw new AppError(ErrorCode.FailedPrecondition, `no price is set for ${c.kind}${c.basis ? ` by ${c.basis}` : ''}`);
  const prices = snapshotOf(rows);
  const reservation = reservationFor(prices, c.estimate);
  if (reservation.gt(MAX_AMOUNT)) {
    throw AppError.field(['body', 'max_tokens'], `this execution could cost ${reservation.toFixed(0)} by ${prices.basis}, more than an amount can hold (${MAX_AMOUNT_TEXT}): lower max_tokens, or the price`, 'too_big');
  }
  const quota = c.quota === '' ? null : new Decimal(c.quota);
  const limits = effectiveLimits(deps.limits, c.level, c);
  return { command: c, quota, limits, input: { ...c, quota: quota ? quota.toFixed() : null, reservation, prices, ...limits, leaseSeconds: c.leaseSeconds ?? 0, finishing } };
}

function admittedAs(p: Prepared, usage: AdmittedUsage): Admitted {
  const quota = usage.quota !== undefined ? usage.quota : p.quota;
  const remaining = quota ? moneyText(quota.minus(usage.usedQuota).minus(usage.reserved)) : '';
  return { reserved: moneyText(p.input.reservation), remaining, basis: p.input.prices.basis };
}

/** One statement for one admission; only a refusal reads the key's row again, to name the limit. */
async function admitOne(deps: AdmitDeps, p: Prepared, options: HotQueryOptions): Promise<Admitted> {
  const c = p.command;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    let admitted;
    try {
      admitted = await deps.usage.tryAdmit(p.input, options);
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError(ErrorCode.AlreadyExists, `task ${c.taskNumber} was already admitted`);
      throw err;
    }
    if (admitted) return admittedAs(p, admitted);
    const state = (await deps.usage.find(c.apiKeyId)) ?? { apiKeyId: c.apiKeyId, accountId: c.accountId, usedQuota: new Decimal(0), reserved: new Decimal(0), inFlight: 0, rpmCount: 0, minuteEndsAt: 0 };
    const refused = refusal(state, await deps.usage.openAmong(c.apiKeyId, p.input.finishing), p.quota, p.input.reservation, p.limits);
    if (refused) throw refused;
  }
  throw new AppError(ErrorCode.Unavailable, 'admission kept racing with other executions of this key; try again');
}

/**
 * Admits one execution: reserves its price against the key's quota and takes rpm and concurrency
 * capacity, atomically, in one statement (prices from the in-memory cache). `options.deadline`:
 * the caller's, so a saturated pool refuses in time (UNAVAILABLE) instead of outliving the call.
 */
export async function admit(deps: AdmitDeps, c: AdmitCommand, options: HotQueryOptions = {}): Promise<Admitted> {
  return admitOne(deps, await prepare(deps, c, []), options);
}

/** Most admissions one AdmitBatch call may carry. */
export const MAX_ADMIT_BATCH = 500;

export type AdmitOutcome = { taskNumber: string; admitted: Admitted } | { taskNumber: string; refused: unknown };

/**
 * Admits many executions, decided in the batch's order as one admission after another would be:
 * one statement for every item of a key that has been admitted before (UsageRepo.tryAdmitMany);
 * a key's first admission, the items after a key's first refusal and repeated task numbers each
 * get the one-item statement, which names the refusing limit. `finishing`: task numbers of ended
 * executions whose settlement follows this batch; their open admissions hold no concurrency slot.
 */
export async function admitBatch(deps: AdmitDeps, commands: AdmitCommand[], options: HotQueryOptions = {}, finishing: string[] = []): Promise<AdmitOutcome[]> {
  if (commands.length > MAX_ADMIT_BATCH) throw AppError.field(['items'], `at most ${MAX_ADMIT_BATCH} admissions per call`, 'size');
  if (finishing.length > MAX_SETTLE_BATCH) throw AppError.field(['finishing'], `at most ${MAX_SETTLE_BATCH} finishing executions per call`, 'size');
  const prepared = await Promise.all(commands.map((c) => prepare(deps, c, finishing).then((p) => ({ p }), (refused: unknown) => ({ refused }))));
  const ready = prepared.flatMap((x) => ('p' in x ? [x.p] : []));
  const together: { usage: Array<AdmittedUsage | undefined> } | { failed: unknown } =
    ready.length > 1 ? await deps.usage.tryAdmitMany(ready.map((p) => p.input), options).then((usage) => ({ usage }), (failed: unknown) => ({ failed })) : { usage: [] };
  if ('failed' in together) return commands.map((c, i) => ({ taskNumber: c.taskNumber, refused: 'refused' in prepared[i] ? prepared[i].refused : together.failed }));
  const decided = new Map(ready.flatMap((p, i) => (together.usage[i] ? [[p, together.usage[i]] as const] : [])));
  return Promise.all(
    prepared.map(async (x, i): Promise<AdmitOutcome> => {
      const taskNumber = commands[i].taskNumber;
      if (!('p' in x)) return { taskNumber, refused: x.refused };
      const usage = decided.get(x.p);
      if (usage) return { taskNumber, admitted: admittedAs(x.p, usage) };
      return admitOne(deps, x.p, options).then(
        (admitted) => ({ taskNumber, admitted }),
        (refused: unknown) => ({ taskNumber, refused }),
      );
    }),
  );
}
