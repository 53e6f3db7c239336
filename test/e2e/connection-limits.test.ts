import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { startTestSystem, type TestSystem } from '../support/system';

// Slow and many connections: a request not received in time is a 408 and its connection closed;
// connections over the per-address or the total cap are closed as they are accepted, and the
// connections already open, and every other client, are served as before.
describe('connection limits and the request timeout', () => {
  let t: TestSystem | null;
  const held: Socket[] = [];
  beforeAll(async () => {
    t = await startTestSystem({ REQUEST_TIMEOUT_MS: '1500', MAX_CONNECTIONS_PER_CLIENT: '8', MAX_CONNECTIONS: '40' });
  });
  afterEach(() => {
    for (const s of held.splice(0)) s.destroy();
  });
  afterAll(async () => {
    await t?.stop();
  });

  const portOf = (url: string) => Number(new URL(url).port);

  /** A connection from `localAddress`: resolves once it is established. */
  function open(url: string, localAddress: string): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: portOf(url), localAddress }, () => resolve(socket));
      socket.once('error', reject);
      held.push(socket);
    });
  }

  /** What the gateway answers on `socket` to `bytes`, and whether it then closed the connection; 'closed' when it closed without a byte. */
  function exchange(socket: Socket, bytes: string, waitMs = 10_000): Promise<{ text: string; closed: boolean }> {
    return new Promise((resolve) => {
      let text = '';
      const done = (closed: boolean) => {
        clearTimeout(timer);
        resolve({ text, closed });
      };
      const timer = setTimeout(() => done(false), waitMs);
      socket.on('data', (d) => {
        text += d.toString('utf8');
        if (/\r\n\r\n/.test(text) && !/connection: close/i.test(text) && /content-length: (\d+)/i.test(text)) {
          const length = Number(/content-length: (\d+)/i.exec(text)![1]);
          if (Buffer.byteLength(text.split('\r\n\r\n').slice(1).join('\r\n\r\n')) >= length) done(false);
        }
      });
      socket.on('error', () => undefined);
      socket.once('close', () => done(true));
      if (!socket.destroyed) socket.write(bytes);
    });
  }

  const HEALTH = 'GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n';

  it('answers 408 {detail} to a body that stops arriving, and closes the connection', async () => {
    if (!t) return;
    const socket = await open(t.http, '127.0.0.20');
    const started = Date.now();
    const res = await exchange(socket, `PUT /v1/billing/prices HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Length: 200\r\n\r\n{"kind":`);
    expect(res.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(res.text.split('\r\n\r\n')[1])).toEqual({ detail: 'the request was not received in time' });
    expect(res.closed).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
  });

  it('answers 408 in the envelope on /api/*', async () => {
    if (!t) return;
    const tcp = await open(t.https, '127.0.0.21');
    const socket = await new Promise<Socket>((resolve) => {
      const s = tlsConnect({ socket: tcp, rejectUnauthorized: false }, () => resolve(s));
      held.push(s);
    });
    const res = await exchange(socket, `POST /api/v1/users HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{`);
    expect(res.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(res.text.split('\r\n\r\n')[1])).toMatchObject({ code: 408, message: 'the request was not received in time', data: {} });
    expect(res.closed).toBe(true);
  });

  it('closes connections from one address over its cap, on both listeners, and serves the others', async () => {
    if (!t) return;
    const mine = await Promise.all(Array.from({ length: 8 }, () => open(t!.http, '127.0.0.30')));
    const refused = await exchange(await open(t.http, '127.0.0.30'), HEALTH, 5_000);
    expect(refused).toEqual({ text: '', closed: true });
    const tcp = await open(t.https, '127.0.0.30');
    const refusedTls = await new Promise<string>((resolve) => {
      const s = tlsConnect({ socket: tcp, rejectUnauthorized: false }, () => resolve('handshake'));
      s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
      s.once('close', () => resolve('closed'));
      held.push(s);
    });
    expect(refusedTls).not.toBe('handshake');

    // Another client is served; so is a connection the capped address already had open.
    expect((await exchange(await open(t.http, '127.0.0.31'), HEALTH)).text).toMatch(/^HTTP\/1\.1 200 /);
    expect((await exchange(mine[0], HEALTH)).text).toMatch(/^HTTP\/1\.1 200 /);

    // A closed connection frees its place.
    mine[1].destroy();
    await new Promise((r) => setTimeout(r, 200));
    expect((await exchange(await open(t.http, '127.0.0.30'), HEALTH)).text).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('closes connections over the total cap, whatever their address', async () => {
    if (!t) return;
    let accepted = 0;
    let refusedAt = -1;
    for (let i = 0; i < 60 && refusedAt < 0; i++) {
      const socket = await open(t.http, `127.0.1.${i + 1}`);
      const answer = await exchange(socket, HEALTH, 5_000);
      if (answer.closed && answer.text === '') refusedAt = i;
      else accepted++;
    }
    // Held connections, the test harness's own, and these: never more than the 40 allowed.
    expect(refusedAt).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(40);
    // Once some are closed, new clients are served again.
    for (const s of held.splice(0, 5)) s.destroy();
    await new Promise((r) => setTimeout(r, 200));
    expect((await exchange(await open(t.http, '127.0.2.1'), HEALTH)).text).toMatch(/^HTTP\/1\.1 200 /);
  });
});
