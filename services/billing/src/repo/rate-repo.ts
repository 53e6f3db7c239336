import type { BillingDb } from '../db';

/** Fixed-window counters shared by every gateway replica. */
export class RateRepo {
  constructor(private readonly db: BillingDb) {}

  /** Counts one request in the bucket's current window; returns the count so far and the window's end. */
  async hit(bucket: string, windowSeconds: number): Promise<{ count: number; resetAt: number }> {
    const rows = await this.db.$queryRaw<Array<{ count: number; reset_at: number }>>`
      INSERT INTO rate_windows (bucket, window_start, count)
      VALUES (${bucket}, to_timestamp(floor(extract(epoch FROM now()) / ${windowSeconds}::int) * ${windowSeconds}::int), 1)
      ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_windows.count + 1
      RETURNING count, (extract(epoch FROM window_start)::bigint + ${windowSeconds}::int) AS reset_at`;
    return { count: rows[0].count, resetAt: Number(rows[0].reset_at) };
  }

  async dropOlderThan(seconds: number): Promise<number> {
    return this.db.$executeRaw`DELETE FROM rate_windows WHERE window_start < now() - make_interval(secs => ${seconds}::int)`;
  }
}
