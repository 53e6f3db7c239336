import type { TasksContext } from '../context';
import type { ExecutionMode } from '../domain/types';

/** Until an app has finished a run, its runs are assumed to take this long. */
const DEFAULT_RUN_MS = 5_000;

/** "about 0.2 seconds", "about 3 seconds", "about 4 minutes". */
export function formatDuration(ms: number): string {
  if (ms < 950) return `about ${Math.max(0.1, Math.round(ms / 100) / 10)} seconds`;
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds < 120) return `about ${seconds} second${seconds === 1 ? '' : 's'}`;
  return `about ${Math.round(seconds / 60)} minutes`;
}

/**
 * Human-readable wait, in O(1): the app's recent mean run time (kept in memory from finished runs)
 * × (waiting tasks per worker slot + 1), the waiting tasks counted up to a cap and estimated above
 * it; the last count is used and recounted in the background a few times a second.
 */
export async function estimateTime(ctx: TasksContext, appId: string, mode: ExecutionMode): Promise<string> {
  if (mode === 'external') return 'depends on the external app that runs this task';
  const [runMs, waiting] = await Promise.all([
    ctx.runTimes.meanMs(appId),
    // The task is already queued: a failed count must not fail its submission.
    Promise.resolve(ctx.waiting.recent('queue')).catch((err: unknown) => {
      ctx.log.warn({ err }, 'counting the waiting tasks failed; the estimate assumes an empty queue');
      return 0;
    }),
  ]);
  const slots = Math.max(1, ctx.settings.workers);
  return formatDuration((runMs ?? DEFAULT_RUN_MS) * (Math.floor(Math.max(0, waiting - 1) / slots) + 1));
}
