import { createLogger, stopOnSignals } from '@tollgate/kit';
import { loadSystemConfig } from './config';
import { StartAborted, startEmbeddedSystem, type EmbeddedSystem } from './embedded';
import { buildConsole } from '../../../scripts/console-build';

/**
 * `pnpm start`. Ctrl-C / SIGTERM stop it in order: the gateway stops accepting and finishes the
 * requests in flight, the workers release their leases, the services stop, the bus closes, the
 * database stops last. A signal during start-up stops what has started, in the same order.
 */
async function main() {
  const config = loadSystemConfig();
  const log = createLogger({ name: 'tollgate', level: config.LOG_LEVEL });
  buildConsole();
  const abort = new AbortController();
  let system: EmbeddedSystem | undefined;
  const starting = startEmbeddedSystem({ config, log, signal: abort.signal, threads: config.TOLLGATE_THREADS === 'on' });
  stopOnSignals(async () => {
    abort.abort();
    const started = await starting.catch((err: unknown) => {
      if (err instanceof StartAborted) return undefined;
      throw err;
    });
    await (system ?? started)?.stop();
  }, log);
  try {
    system = await starting;
  } catch (err) {
    if (err instanceof StartAborted) return; // the signal handler finishes the stop and exits
    throw err;
  }
  const lines = [
    '',
    'Tollgate is running.',
    `  HTTP   ${system.gateway.httpUrl}   (task API, key management; /readyz, /healthz)`,
    system.gateway.httpsUrl ? `  HTTPS  ${system.gateway.httpsUrl}  (docs API /api/v1/*; self-signed unless TLS_CERT_FILE is set)` : '',
    `  console ${system.gateway.httpsUrl ?? system.gateway.httpUrl}/console/   (web console; sign in with the admin token from ${process.env.TOLLGATE_DATA_DIR ?? './.tollgate'}/admin-token)`,
    `  data   ${process.env.TOLLGATE_DATA_DIR ?? './.tollgate'}`,
    '  Ctrl-C stops it.',
    '',
  ];
  process.stdout.write(lines.filter((l) => l !== '').join('\n') + '\n');
}

main().catch((err: unknown) => {
  // What stopped the start, in one line (a configuration error, a port in use, a data folder in
  // use); the stack too with LOG_LEVEL=debug.
  const error = err as NodeJS.ErrnoException & { port?: number };
  const why = error.code === 'EADDRINUSE' ? `port ${error.port ?? ''} is in use by another program: set PORT / HTTPS_PORT, or stop it` : error.message;
  console.error(`tollgate could not start: ${why}`);
  if (/^(debug|trace)$/i.test(process.env.LOG_LEVEL ?? '')) console.error(err);
  process.exit(1);
});
