import { AppError } from '@tollgate/kit';
import type { RequestRecord } from '@tollgate/protos/site';
import type { RequestRecorderRepo } from '../site/request-recorder-repo';

export const MAX_BATCH = 50_000;
const GROUP = /^[a-z0-9_-]{1,32}$/;

/** Adds a gateway's batch of request measurements to the raw table and the rollups (once per batch id). */
export async function recordRequests(repo: RequestRecorderRepo, batchId: string, records: RequestRecord[]): Promise<boolean> {
  if (!/^[A-Za-z0-9_-]{8,64}$/.test(batchId)) throw AppError.field(['batch_id'], 'batch_id: 8 to 64 letters, digits, dashes or underscores');
  if (records.length > MAX_BATCH) throw AppError.field(['records'], `records: at most ${MAX_BATCH} per batch`);
  const measures = records
    .filter((r) => GROUP.test(r.group) && r.status >= 100 && r.status <= 599 && Number.isFinite(r.latencyMs) && r.latencyMs >= 0)
    .map((r) => ({ atMs: Number(r.at), accountId: Math.max(0, r.accountId), group: r.group, status: r.status, latencyMs: r.latencyMs, documentId: Math.max(0, r.documentId) }));
  return repo.record(batchId, measures);
}
