import type { Logger } from 'pino';

/** Runs `stop` once on SIGINT/SIGTERM, then exits; a second signal exits at once. */
export function stopOnSignals(stop: () => Promise<void>, log: Logger): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
    stopping = true;
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
