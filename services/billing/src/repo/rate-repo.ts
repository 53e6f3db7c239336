import type { HotQueryable } from '@tollgate/kit';
import type { BillingDb } from '../db';

export class RateRepo {
  constructor(
    private readonly db: BillingDb,
    private readonly hot: HotQueryable,
  ) {}

  /** Counts `hits` requests in the bucket's current window (one statement); returns the count so far and the window's end. */
  async hit(bucket: string, windowSeconds: number, hits: number): Promise<{ count: number; resetAt: number }> {
    const { rows } = await this.hot.query<{ count: number; reset_at: string }>(
      `INSERT INTO rate_windows (bucket, window_start, count)
       VALUES ($1, to_timestamp(floor(extract(epoch FROM now()) / $2::int) * $2::int), $3)
       ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_windows.count + excluded.count
       RETURNING count, (extract(epoch FROM window_start)::bigint + $2::int) AS reset_at`,
      [bucket, windowSeconds, hits],
    );
    return { count: rows[0].count, resetAt: Number(rows[0].reset_at) };
  }

  async dropOlderThan(seconds: number): Promise<number> {
    return this.db.$executeRaw`DELETE FROM rate_windows WHERE window_start < now() - make_interval(secs => ${seconds}::int)`;
  }
}
