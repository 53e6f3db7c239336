import type { TasksDb } from '../db';

export interface RunStat {
  ewmaMs: number;
  samples: number;
}

/** Each app's recent run time (`app_run_stats`): read once per app, written in batches. */
export class RunStatsRepo {
  constructor(private readonly db: TasksDb) {}

  async get(appId: string): Promise<RunStat | null> {
    const row = await this.db.appRunStat.findUnique({ where: { appId } });
    return row && { ewmaMs: row.ewmaMs, samples: row.samples };
  }

  /** One statement for the whole batch: insert or overwrite each app's figure. */
  async saveMany(stats: ReadonlyMap<string, RunStat>): Promise<void> {
    if (stats.size === 0) return;
    const ids = [...stats.keys()];
    const values = ids.map((id) => stats.get(id)!);
    await this.db.$executeRaw`
      INSERT INTO app_run_stats (app_id, ewma_ms, samples, updated_at)
      SELECT * FROM unnest(${ids}::text[], ${values.map((v) => v.ewmaMs)}::float8[], ${values.map((v) => v.samples)}::int[], array_fill(now()::timestamp(3), ARRAY[${ids.length}::int]))
      ON CONFLICT (app_id) DO UPDATE SET ewma_ms = EXCLUDED.ewma_ms, samples = EXCLUDED.samples, updated_at = EXCLUDED.updated_at`;
  }
}
