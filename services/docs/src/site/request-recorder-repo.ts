import type { DocsDb } from '../db';
import { addEventCounts, periodsOf, type EventCount, type PeriodKind } from './rollups';
import { latencyBucket } from './latency-buckets';
import { ALL_STATUSES } from './analytics-repo';

export interface RequestMeasure {
  atMs: number;
  accountId: number;
  group: string;
  status: number;
  latencyMs: number;
  /** A successful document read: counts a view. */
  documentId: number;
}

const TX_OPTIONS = { timeout: 30_000, maxWait: 10_000 };

/** Raw request measurements and their rollups, written in one transaction per batch. */
export class RequestRecorderRepo {
  constructor(private readonly db: DocsDb) {}

  /** Counts a gateway's batch once (a batch id seen before is ignored); returns whether it was new. */
  async record(batchId: string, records: RequestMeasure[]): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      const inserted = await tx.$executeRaw`INSERT INTO request_batches (batch_id) VALUES (${batchId}) ON CONFLICT DO NOTHING`;
      if (inserted === 0 || records.length === 0) return inserted > 0;
      await tx.$executeRaw`
        INSERT INTO request_events (at, account_id, "group", status, latency_ms, document_id)
        SELECT t AT TIME ZONE 'UTC', a, g, s, l, d
        FROM unnest(${records.map((r) => new Date(r.atMs).toISOString())}::timestamptz[], ${records.map((r) => r.accountId)}::int[], ${records.map((r) => r.group)}::text[],
                    ${records.map((r) => r.status)}::int[], ${records.map((r) => r.latencyMs)}::float8[], ${records.map((r) => r.documentId)}::int[]) AS x(t, a, g, s, l, d)`;
      const sums = new Map<string, { kind: PeriodKind; account: number; start: number; group: string; statusClass: number; count: number; hist: number[] }>();
      const events: EventCount[] = [];
      for (const r of records) {
        const statusClass = Math.floor(r.status / 100);
        const bucket = latencyBucket(r.latencyMs);
        for (const p of periodsOf(r.atMs)) {
          for (const account of r.accountId > 0 ? [0, r.accountId] : [0]) {
            for (const cls of [statusClass, ALL_STATUSES]) {
              const key = `${p.kind}|${account}|${p.start}|${r.group}|${cls}`;
              let row = sums.get(key);
              if (!row) sums.set(key, (row = { kind: p.kind, account, start: p.start, group: r.group, statusClass: cls, count: 0, hist: [] }));
              row.count++;
              if (cls !== ALL_STATUSES) continue;
              for (let i = row.hist.length; i <= bucket; i++) row.hist.push(0);
              row.hist[bucket]++;
            }
          }
        }
        if (r.accountId > 0) events.push({ metric: 'request', accountId: r.accountId, atMs: r.atMs, dim: '', count: 1 });
        if (r.documentId > 0) events.push({ metric: 'document.view', accountId: r.accountId, atMs: r.atMs, dim: String(r.documentId), count: 1 });
      }
      const rows = [...sums.values()];
      // histograms travel as '{…}' text (unnest would flatten an int[][]) and are added element-wise on conflict
      await tx.$executeRaw`
        INSERT INTO request_rollups (period_kind, account_id, period_start, "group", status_class, count, latency)
        SELECT k, a, s AT TIME ZONE 'UTC', g, c, n, h::int[]
        FROM unnest(${rows.map((r) => r.kind)}::text[], ${rows.map((r) => r.account)}::int[], ${rows.map((r) => new Date(r.start).toISOString())}::timestamptz[],
                    ${rows.map((r) => r.group)}::text[], ${rows.map((r) => r.statusClass)}::int[], ${rows.map((r) => r.count)}::int[], ${rows.map((r) => `{${r.hist.join(',')}}`)}::text[]) AS x(k, a, s, g, c, n, h)
        ON CONFLICT (period_kind, account_id, period_start, "group", status_class) DO UPDATE SET
          count = request_rollups.count + excluded.count,
          latency = ARRAY(
            SELECT coalesce(request_rollups.latency[i], 0) + coalesce(excluded.latency[i], 0)
            FROM generate_series(1, greatest(cardinality(request_rollups.latency), cardinality(excluded.latency))) AS i ORDER BY i)`;
      await addEventCounts(tx, events);
      return true;
    }, TX_OPTIONS);
  }

  /** Forgets raw measurements and batch ids older than `before`; the rollups stay. */
  async prune(before: Date): Promise<number> {
    const n = await this.db.$executeRaw`DELETE FROM request_events WHERE at < ${before}`;
    await this.db.$executeRaw`DELETE FROM request_batches WHERE received_at < ${before}`;
    return n;
  }
}
