import type { Logger } from '@tollgate/kit';
import type { ActivityRepo } from './activity-repo';
import type { RequestRecorderRepo } from './request-recorder-repo';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** Prunes activity and raw request measurements past their retention, now and then hourly. */
export function startRetention(activity: ActivityRepo, recorder: RequestRecorderRepo, days: { activity: number; raw: number }, log: Logger): { stop(): void; runOnce(): Promise<void> } {
  const runOnce = async () => {
    const now = Date.now();
    try {
      const a = await activity.prune(new Date(now - days.activity * DAY_MS));
      const r = await recorder.prune(new Date(now - days.raw * DAY_MS));
      if (a + r > 0) log.info({ activity: a, requests: r }, 'pruned data past its retention');
    } catch (err) {
      log.warn({ err }, 'retention pass failed; retried in an hour');
    }
  };
  void runOnce();
  const timer = setInterval(() => void runOnce(), HOUR_MS);
  timer.unref();
  return { stop: () => clearInterval(timer), runOnce };
}
