import type { Logger } from 'pino';

/**
 * A repeat within this time is the same signal passed on by a launcher (`pnpm start` → tsx → node,
 * or a terminal's Ctrl-C reaching each of them), not a second one.
 */
const RELAYED_REPEAT_MS = 300;

/** Runs `stop` once on SIGINT/SIGTERM, then exits; a second signal exits at once. */
export function stopOnSignals(stop: () => Promise<void>, log: Logger): void {
  let stoppingSince: number | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (stoppingSince !== undefined) {
      if (performance.now() - stoppingSince < RELAYED_REPEAT_MS) return;
      log.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
    stoppingSince = performance.now();
    log.info({ signal }, 'shutting down');
    stop().then(
      () => {
        log.info('stopped cleanly');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
