import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Closes the server and every connection still open (streams included). */
  close(): Promise<void>;
}

/** An HTTP server on a free loopback port, for fakes of the outside world that speak its real protocol. */
export async function serveOnLoopback(handle: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
