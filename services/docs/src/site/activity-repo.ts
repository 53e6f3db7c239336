import type { ActivityEvent, HotQueryable } from '@tollgate/kit';
import type { DocsDb } from '../db';

export interface ActivityRow {
  id: bigint;
  accountId: number;
  type: string;
  targetType: string;
  targetId: string;
  at: Date;
  ip: string;
  userAgent: string;
  summary: string;
}

export interface ActivityFilter {
  accountId?: number;
  type?: string;
  from?: Date;
  to?: Date;
  offset: number;
  limit: number;
}

const clip = (s: unknown, max: number) => (typeof s === 'string' ? s : '').slice(0, max);

/** The activity log: one row per `activity.recorded` event (its id makes a redelivery a no-op). */
export class ActivityRepo {
  constructor(
    private readonly db: DocsDb,
    /** Plain `pg` for the one-row insert every recorded action makes (a HotPool in the service). */
    private readonly hot: HotQueryable,
  ) {}

  /** Stores the event; false when its id was stored before (a redelivery). One statement, no Prisma query compilation. */
  async record(e: ActivityEvent): Promise<boolean> {
    const at = new Date(e.at);
    const { rowCount } = await this.hot.query(
      `INSERT INTO activity (event_id, account_id, type, target_type, target_id, at, ip, user_agent, summary)
       VALUES ($1, $2, $3, $4, $5, $6::timestamptz AT TIME ZONE 'UTC', $7, $8, $9)
       ON CONFLICT (event_id) DO NOTHING`,
      [
        clip(e.id, 64),
        Number.isInteger(e.user_id) ? e.user_id : 0,
        clip(e.type, 64),
        clip(e.target_type, 64),
        clip(e.target_id, 128),
        (Number.isNaN(at.getTime()) ? new Date() : at).toISOString(),
        clip(e.ip, 64),
        clip(e.user_agent, 512),
        clip(e.summary, 500),
      ],
    );
    return (rowCount ?? 0) > 0;
  }

  async list(f: ActivityFilter): Promise<{ rows: ActivityRow[]; total: number }> {
    const where = {
      ...(f.accountId !== undefined && { accountId: f.accountId }),
      ...(f.type && { type: f.type }),
      ...((f.from || f.to) && { at: { ...(f.from && { gte: f.from }), ...(f.to && { lt: f.to }) } }),
    };
    const [rows, total] = await Promise.all([
      this.db.activity.findMany({ where, orderBy: [{ at: 'desc' }, { id: 'desc' }], skip: f.offset, take: f.limit }),
      this.db.activity.count({ where }),
    ]);
    return { rows, total };
  }

  async prune(before: Date): Promise<number> {
    const { count } = await this.db.activity.deleteMany({ where: { at: { lt: before } } });
    return count;
  }
}
