import { createLogger, stopOnSignals } from '@tollgate/kit';
import { loadSystemConfig } from './config';
import { startEmbeddedSystem } from './embedded';

async function main() {
  const config = loadSystemConfig();
  const log = createLogger({ name: 'tollgate', level: config.LOG_LEVEL });
  const system = await startEmbeddedSystem({ config, log });
  const lines = [
    '',
    'Tollgate is running.',
    `  HTTP   ${system.gateway.httpUrl}   (task API, key management; /readyz, /healthz)`,
    system.gateway.httpsUrl ? `  HTTPS  ${system.gateway.httpsUrl}  (docs API /api/v1/*; self-signed unless TLS_CERT_FILE is set)` : '',
    `  data   ${process.env.TOLLGATE_DATA_DIR ?? './.tollgate'}`,
    '  Ctrl-C stops it.',
    '',
  ];
  process.stdout.write(lines.filter((l) => l !== '').join('\n') + '\n');
  stopOnSignals(() => system.stop(), log);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
