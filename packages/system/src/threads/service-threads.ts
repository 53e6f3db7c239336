import { join } from 'node:path';
import { MessageChannel, Worker } from 'node:worker_threads';
import { createMetricsRegistry, serveBusOnPort, type EventBus, type Logger, type ServiceHandle, type ServiceName } from '@tollgate/kit';
import type { ThreadReply, ThreadRequest } from './protocol';

/**
 * The worker's first code: TypeScript loading (tsx's CommonJS hooks; Node's `--import` loaders are
 * not carried into worker threads) and then the services-thread entry.
 */
const THREAD_BOOT = `require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register(); require(${JSON.stringify(join(__dirname, 'service-thread.ts'))});`;

/** A worker thread running some of the services, seen from the main thread. */
export interface ServiceThread {
  names: readonly ServiceName[];
  /** Starts one of its services with `env`; its handle's stop() stops it (the last one ends the thread). */
  start(name: ServiceName, env: NodeJS.ProcessEnv): Promise<ServiceHandle>;
  /** Ends the thread at once (start-up failed or was called off). */
  terminate(): Promise<void>;
}

/**
 * Loads `names` in a worker thread, so their CPU work runs beside the gateway's on another core,
 * with the main thread's bus served to it over a MessagePort. Resolves once their code is loaded.
 */
export async function loadServiceThread(names: readonly ServiceName[], bus: EventBus, log: Logger): Promise<ServiceThread> {
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(THREAD_BOOT, {
    eval: true,
    workerData: { names, busPort: port2, logLevel: log.level, pretty: process.stdout.isTTY === true && process.env.LOG_FORMAT !== 'json' },
    transferList: [port2],
    env: process.env,
  });
  const served = serveBusOnPort(bus, port1);
  let exited = false;
  const waiting: Array<{ match(m: ThreadReply): boolean; resolve(m: ThreadReply): void; reject(err: Error): void }> = [];
  worker.on('message', (m: ThreadReply) => {
    if (m.op === 'failed') {
      const w = waiting.shift();
      w?.reject(Object.assign(new Error(m.error.message), { stack: m.error.stack }));
      return;
    }
    const i = waiting.findIndex((w) => w.match(m));
    if (i >= 0) waiting.splice(i, 1)[0].resolve(m);
  });
  worker.on('error', (err) => log.error({ err, services: names }, 'services thread failed'));
  worker.once('exit', (code) => {
    exited = true;
    port1.close();
    for (const w of waiting.splice(0)) w.reject(new Error(`the ${names.join('+')} thread exited (code ${code})`));
  });
  const ask = (match: (m: ThreadReply) => boolean, send?: ThreadRequest) =>
    new Promise<ThreadReply>((resolve, reject) => {
      if (exited) return reject(new Error(`the ${names.join('+')} thread has exited`));
      waiting.push({ match, resolve, reject });
      if (send) worker.postMessage(send);
    });
  const terminate = async () => {
    if (!exited) await worker.terminate();
    await served;
  };
  const running = new Set<ServiceName>();

  await ask((m) => m.op === 'loaded');
  return {
    names,
    terminate,
    async start(name, env) {
      const started = (await ask((m) => m.op === 'started' && m.name === name, { op: 'start', name, env })) as Extract<ThreadReply, { op: 'started' }>;
      running.add(name);
      return {
        name,
        address: started.address,
        metricsUrl: started.metricsUrl,
        // The service's own registry lives in its thread (served on METRICS_PORT when set).
        metrics: createMetricsRegistry({ service: name }, { processMetrics: false }),
        async stop() {
          if (!running.delete(name)) return;
          await ask((m) => m.op === 'stopped' && m.name === name, { op: 'stop', name });
          if (running.size === 0) {
            await ask((m) => m.op === 'closed', { op: 'close' });
            await terminate();
          }
        },
      };
    },
  };
}
