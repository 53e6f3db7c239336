import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import express from 'express';
import pino from 'pino';
import { AppError } from '@tollgate/kit';
import { accessLog } from '../src/http/access-log';
import { requestId } from '../src/http/request-id';
import { sendError } from '../src/http/errors';

interface Line {
  level: number;
  msg: string;
  requestId?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
  code?: string;
}

// The access log over real HTTP: one line per request at the level its outcome deserves.
describe('access log', () => {
  const lines: Line[] = [];
  const raw: string[] = [];
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) {
          raw.push(l);
          lines.push(JSON.parse(l) as Line);
        }
        done();
      },
    });
    const log = pino({ level: 'debug' }, sink);
    const app = express();
    app.use(requestId);
    app.use(accessLog(log));
    app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
    app.get('/ok', (_req, res) => void res.json({ ok: true }));
    app.get('/busy', (_req, res) => sendError(res, new AppError('UNAVAILABLE', 'at capacity', { retryAfterSeconds: 1 })));
    app.get('/broken', (_req, res) => sendError(res, new Error('boom')));
    app.use((_req, res) => sendError(res, AppError.notFound('no route')));
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const completed = async (path: string, id: string) => {
    await fetch(`${base}${path}`, { headers: { 'x-request-id': id } }).then((r) => r.arrayBuffer());
    for (let i = 0; i < 50 && !lines.some((l) => l.requestId === id && l.msg === 'request completed'); i++) await new Promise((r) => setTimeout(r, 10));
    return lines.filter((l) => l.requestId === id);
  };

  it('logs a success at info with method, path, status and time', async () => {
    const mine = await completed('/ok?x=1', 'log-ok');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ level: 30, msg: 'request completed', req: { method: 'GET', url: '/ok?x=1' }, res: { statusCode: 200 } });
    expect(typeof mine[0].responseTime).toBe('number');
  });

  it("logs a client's mistake at debug, with the reason", async () => {
    const mine = await completed('/nowhere', 'log-404');
    expect(mine.map((l) => [l.level, l.msg])).toEqual([
      [20, 'request rejected'],
      [20, 'request completed'],
    ]);
    expect(mine[0].code).toBe('NOT_FOUND');
  });

  it('logs back-pressure (503 with Retry-After) as a warning and a fault as an error', async () => {
    expect((await completed('/busy', 'log-503')).map((l) => [l.level, l.msg])).toEqual([
      [40, 'request shed'],
      [40, 'request completed'],
    ]);
    expect((await completed('/broken', 'log-500')).map((l) => [l.level, l.msg])).toEqual([
      [50, 'request failed'],
      [50, 'request completed'],
    ]);
  });

  it('never logs probes, and never repeats the request id on a line', async () => {
    await completed('/healthz', 'log-probe');
    expect(lines.filter((l) => l.requestId === 'log-probe')).toEqual([]);
    expect(raw.length).toBeGreaterThan(5);
    for (const line of raw) expect(line.match(/"requestId":/g)).toHaveLength(1);
  });
});
