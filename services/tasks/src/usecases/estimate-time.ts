import type { TasksContext } from '../context';
import type { ExecutionMode } from '../domain/types';

const DEFAULT_RUN_MS = 5_000;

export function formatDuration(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 120) return `about ${seconds} second${seconds === 1 ? "" : "s"}`;
  return `about ${Math.ceil(seconds / 60)} minutes`;
}

/** Human-readable wait: recent run time of the app × (waiting tasks per worker slot + 1). */
export async function estimateTime(ctx: TasksContext, appId: string, mode: ExecutionMode): Promise<string> {
  if (mode === 'external') return 'depends on the external app that runs this task';
  const [runMs, waiting] = await Promise.all([ctx.tasks.recentDurationMs(appId), ctx.tasks.countWaiting()]);
  const slots = Math.max(1, ctx.settings.workers);
  return formatDuration((runMs ?? DEFAULT_RUN_MS) * (Math.floor(Math.max(0, waiting - 1) / slots) + 1));
}
