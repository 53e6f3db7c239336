import { ProbeClient, ProbeService } from '@tollgate/protos/common';
import { createGrpcClient, implement, startGrpcServer, type RunningGrpcServer } from '../src/grpc';
import { silentLogger } from '../src/logging';

const log = silentLogger();
const startProbe = (port: number) =>
  startGrpcServer({
    name: 'probe-reconnect',
    port,
    log,
    shutdownGraceMs: 100,
    services: [{ definition: ProbeService, implementation: implement(ProbeService, { ping: async () => ({ service: 'back', databaseTime: '' }) }, log) }],
  });

// A service killed and started again on the same address (a restarted process, a rescheduled pod)
// is reachable again within about a second: the client's reconnect backoff, which grows while the
// service is away, is capped low (grpc-js would otherwise wait up to two minutes between attempts,
// failing every call meanwhile with "No connection established").
describe('a gRPC client after its server comes back', () => {
  let server: RunningGrpcServer | undefined;
  afterEach(async () => {
    await server?.shutdown();
  });

  it('reaches a server that was away for 20 s within 1.5 s of its return', async () => {
    server = await startProbe(0);
    const port = Number(server.address.split(':').pop());
    const client = createGrpcClient(ProbeClient, server.address, { timeoutMs: 300 });
    try {
      expect((await client.ping({})).service).toBe('back');
      await server.shutdown();
      server = undefined;
      await expect(client.ping({})).rejects.toBeDefined();
      await new Promise((r) => setTimeout(r, 20_000));
      server = await startProbe(port);
      const back = Date.now();
      let answer: string | undefined;
      while (!answer && Date.now() - back < 10_000) {
        answer = await client.ping({}).then((r) => r.service, () => undefined);
        if (!answer) await new Promise((r) => setTimeout(r, 50));
      }
      expect(answer).toBe('back');
      expect(Date.now() - back).toBeLessThan(1_500);
    } finally {
      client.close();
    }
  }, 45_000);
});
