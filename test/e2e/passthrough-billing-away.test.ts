import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startTestSystem, type TestSystem } from '../support/system';
import { billingSql } from './billing-support';
import { accountKey, chat, post } from './passthrough-support';

// A passthrough call whose upstream fails is refunded before the gateway answers 502. When billing
// went away after admitting the call, that refund cannot land; the client must still get its 502
// promptly (the refund keeps being retried in the background, and billing's sweep refunds the
// admission if it never lands), not after the refund's ~30 s of retries.

/** An upstream that accepts a request, tells the test (`received`, once per request), and breaks the connection when told to. */
async function breakingUpstream(): Promise<{ baseUrl: string; readonly received: Promise<void>; breakOff(): void; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const arrivals: Array<() => void> = [];
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    socket.once('data', () => arrivals.splice(0).forEach((arrived) => arrived()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get received() {
      return new Promise<void>((resolve) => arrivals.push(resolve));
    },
    breakOff: () => sockets.splice(0).forEach((s) => s.destroy()),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('provider passthrough while billing is away', () => {
  let t: TestSystem | null;
  let upstream: Awaited<ReturnType<typeof breakingUpstream>>;

  beforeAll(async () => {
    upstream = await breakingUpstream();
    t = await startTestSystem({ SETTLE_LINGER_MS: '1000', PROVIDERS: JSON.stringify({ breaking: { base_url: upstream.baseUrl } }), BILLING_RPM_PRO: '100000', BILLING_CONCURRENCY_PRO: '1000' });
  });
  afterAll(async () => {
    await t?.stop();
    await upstream?.close();
  });

  it('refunds a failed call before answering 502, even with a settlement linger of a second', async () => {
    if (!t) return;
    const k = await accountKey(t, 'provider:breaking', '5');
    const answer = post(t, '/v1/chat/completions', k.key, chat('upstream breaks off'));
    await upstream.received;
    upstream.breakOff();
    expect((await answer).status).toBe(502);
    const [admission] = await billingSql<{ state: string }>(t, 'SELECT state FROM admissions WHERE api_key_id = $1', [k.id]);
    expect(admission.state).toBe('refunded');
  });

  it('answers 502 without waiting for the refund that billing cannot take', async () => {
    if (!t) return;
    const k = await accountKey(t, 'provider:breaking', '5');
    const answer = post(t, '/v1/chat/completions', k.key, chat('billing goes away'));
    await upstream.received;
    const [admission] = await billingSql<{ state: string }>(t, 'SELECT state FROM admissions WHERE api_key_id = $1', [k.id]);
    expect(admission.state).toBe('open');
    await t.system.services.billing.stop();
    upstream.breakOff();
    // Without a cap on the refund's wait, this answer would come after ~30 s of retries: past this test's timeout.
    expect(await answer).toEqual({ status: 502, body: { detail: expect.stringMatching(/^provider "breaking" is unreachable or failed: /), request_id: expect.any(String) } });
  }, 15_000);
});
