import type { Logger } from '@tollgate/kit';

/**
 * Runs `build` until it succeeds (the docs service may start after us in the distributed mode),
 * backing off up to 30 s; `stop()` ends the retries.
 */
export function buildUntilDone(build: () => Promise<unknown>, log: Logger): { done: Promise<boolean>; stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const done = (async () => {
    for (let attempt = 1; !stopped; attempt++) {
      try {
        await build();
        return true;
      } catch (err) {
        const delay = Math.min(30_000, 500 * 2 ** (attempt - 1));
        log.warn({ err, attempt, retryInMs: delay }, 'initial index build failed; retrying');
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, delay);
        });
      }
    }
    return false;
  })();
  return {
    done,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      wake?.();
    },
  };
}
