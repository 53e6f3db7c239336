import type { AddressInfo } from 'node:net';
import express from 'express';

/** The baseline: an Express app with one JSON handler and nothing else, in the same process as the gateway. */
export async function startBareExpress(): Promise<{ url: string; stop(): Promise<void> }> {
  const app = express();
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
