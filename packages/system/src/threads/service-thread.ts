/**
 * Entry of a services thread in the embedded default: starts its service modules (one at a time,
 * when told) with a bus connected to the main thread's, and stops them when told. gRPC over
 * loopback as in every mode.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import pino from 'pino';
import { connectPortBus, createLogger, type ServiceHandle, type ServiceName } from '@tollgate/kit';
import { moduleNamed } from '../modules';
import type { ThreadReply, ThreadRequest } from './protocol';

const data = workerData as { names: ServiceName[]; busPort: MessagePort; logLevel: string; pretty: boolean };
const modules = new Map(data.names.map((n) => [n, moduleNamed(n)]));
// JSON lines go straight to fd 1 with synchronous writes: a worker's process.stdout forwards to the
// main thread asynchronously, and what is still on its way when the thread ends would be lost.
const log = createLogger({ name: 'tollgate', level: data.logLevel, pretty: data.pretty, destination: data.pretty ? undefined : pino.destination({ dest: 1, sync: true }) });
const bus = connectPortBus(data.busPort, { logger: log });
const handles = new Map<ServiceName, ServiceHandle>();

const post = (m: ThreadReply) => parentPort!.postMessage(m);
const failure = (err: unknown) => ({ op: 'failed' as const, error: { message: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined } });

parentPort!.on('message', (m: ThreadRequest) => {
  if (m.op === 'start') {
    const module = modules.get(m.name)!;
    module
      .start(module.loadConfig(m.env), { bus, log: log.child({ service: m.name }) })
      .then((h) => {
        handles.set(m.name, h);
        post({ op: 'started', name: m.name, address: h.address, metricsUrl: h.metricsUrl });
      })
      .catch((err: unknown) => post(failure(err)));
  } else if (m.op === 'stop') {
    const h = handles.get(m.name);
    handles.delete(m.name);
    (h ? h.stop() : Promise.resolve()).then(
      () => post({ op: 'stopped', name: m.name }),
      (err: unknown) => post(failure(err)),
    );
  } else if (m.op === 'close') {
    // Logs written in this thread reach stdout before the thread is ended.
    bus
      .close()
      .then(() => new Promise<void>((resolve) => log.flush(() => resolve())))
      .then(
      () => post({ op: 'closed' }),
      (err: unknown) => post(failure(err)),
    );
  }
});
post({ op: 'loaded' });
