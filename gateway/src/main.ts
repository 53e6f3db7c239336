import { connectNatsBus, createLogger, createMemoryBus, stopOnSignals } from '@tollgate/kit';
import { loadGatewayConfig } from './config';
import { startGateway } from './gateway';

async function main() {
  const config = loadGatewayConfig();
  const log = createLogger({ name: 'gateway', level: config.LOG_LEVEL });
  const bus = config.NATS_URL ? await connectNatsBus({ url: config.NATS_URL, name: 'gateway', prefix: config.NATS_PREFIX, logger: log }) : createMemoryBus();
  const gateway = await startGateway(config, log, { bus });
  stopOnSignals(async () => {
    await gateway.stop();
    await bus.close();
  }, log);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
