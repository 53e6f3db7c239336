import { ErrorCode, implement, isAppError, toItemError, type Logger } from '@tollgate/kit';
import { BillingService, type AdmitRequest, type AdmitResult, type SettleRequest } from '@tollgate/protos/billing';
import type { ServiceBinding } from '@tollgate/kit';
import type { LevelLimits } from './config';
import type { AdmissionRepo } from './repo/admission-repo';
import type { LedgerRepo } from './repo/ledger-repo';
import type { PriceCache } from './repo/price-cache';
import type { RateRepo } from './repo/rate-repo';
import type { UsageRepo } from './repo/usage-repo';
import { admit, admitBatch, type AdmitOutcome } from './usecases/admit';
import { settle, settleBatch } from './usecases/settle';
import { expiredAdmissions, renewAdmissions } from './usecases/admission-leases';
import { getUsage } from './usecases/get-usage';
import { setKeyQuota } from './usecases/set-key-quota';
import { queryUsage } from './usecases/query-usage';
import { listPrices, setPrice } from './usecases/prices';
import { getBill } from './usecases/get-bill';
import { hitRateLimit } from './usecases/hit-rate-limit';

export interface BillingParts {
  usage: UsageRepo;
  admissions: AdmissionRepo;
  prices: PriceCache;
  ledger: LedgerRepo;
  rates: RateRepo;
  limits: LevelLimits;
  freezeGraceSeconds: number;
}

const decodeAdmit = (r: AdmitRequest) => ({
  ...r,
  estimate: { inputTokens: r.estimatedInputTokens, outputTokens: r.estimatedOutputTokens, seconds: r.estimatedSeconds },
});

/** A batch item's refusal travels as the error Admit would have sent; a fault (not a refusal) is logged here, as the handlers log a failed call. */
function encodeAdmitOutcome(o: AdmitOutcome, log: Logger): AdmitResult {
  if ('admitted' in o) return { taskNumber: o.taskNumber, admitted: o.admitted, errorCode: 0, errorMessage: '', errorDetails: '' };
  if (!isAppError(o.refused) || o.refused.code === ErrorCode.Internal) log.error({ err: o.refused, taskNumber: o.taskNumber }, 'admission failed');
  const e = toItemError(o.refused);
  return { taskNumber: o.taskNumber, errorCode: e.code, errorMessage: e.message, errorDetails: e.details };
}

const decodeSettle = (r: SettleRequest) => ({
  taskNumber: r.taskNumber,
  outcome: r.outcome,
  units: { inputTokens: Number(r.units?.inputTokens ?? 0), outputTokens: Number(r.units?.outputTokens ?? 0), seconds: r.units?.seconds ?? '' },
});

/** gRPC handlers: decode → use case → encode. */
export function billingBinding(p: BillingParts, log: Logger): ServiceBinding {
  return {
    definition: BillingService,
    implementation: implement(
      BillingService,
      {
        admit: (r, ctx) => admit(p, decodeAdmit(r), { deadline: ctx.deadline }),
        admitBatch: async (r, ctx) => {
          const settlements = r.settlements.length > 0 ? await settleBatch(p, r.settlements.map(decodeSettle)) : [];
          const items = await admitBatch(p, r.items.map(decodeAdmit), { deadline: ctx.deadline }, r.finishing);
          return { items: items.map((o) => encodeAdmitOutcome(o, ctx.log)), settlements };
        },
        settle: (r) => settle(p, decodeSettle(r)),
        settleBatch: async (r) => ({ items: await settleBatch(p, r.items.map(decodeSettle)) }),
        renewAdmissions: async (r) => ({ renewed: await renewAdmissions(p, r.taskNumbers, r.leaseSeconds) }),
        expiredAdmissions: async (r) => ({ taskNumbers: await expiredAdmissions(p, r.limit) }),
        getUsage: async (r) => ({ items: await getUsage(p, r.apiKeyIds) }),
        setKeyQuota: (r) => setKeyQuota(p, r),
        queryUsage: (r) => queryUsage(p, { actor: r.actor, accountId: r.accountId, apiKeyId: r.apiKeyId, from: r.from, to: r.to }),
        listPrices: async () => ({ items: await listPrices(p) }),
        setPrice: (r) => setPrice(p, r.actor, { kind: r.price?.kind ?? '', basis: r.price?.basis ?? '', unitPrice: r.price?.unitPrice ?? '' }),
        getBill: (r) => getBill(p, { actor: r.actor, accountId: r.accountId, month: r.month }),
        hitRateLimit: (r) => hitRateLimit(p, r),
      },
      log,
    ),
  };
}
