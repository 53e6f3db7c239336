import http from 'node:http';
import { startTestSystem, type TestSystem } from '../support/system';
import { TASKS_TEST_ENV, newAccountWithKey, send, waitForStatus } from './tasks-support';

// A streamed answer to a client that stops reading: the stream waits for the client (the run
// behind it waits too, instead of the gateway buffering the whole answer in memory), and a client
// that takes nothing for SSE_STALL_TIMEOUT_MS is disconnected, its run ending as one that left.
describe('streaming to a client that stops reading', () => {
  let t: TestSystem | null;

  beforeAll(async () => {
    t = await startTestSystem({ ...TASKS_TEST_ENV, SSE_STALL_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('holds the run back and then disconnects the client: the task ends 已取消, not answered in full into memory', async () => {
    if (!t) return;
    const me = await newAccountWithKey(t);
    // (an Idempotency-Key gives the sync run its task row while it runs, to watch it.)
    // About 100,000 words, echoed one chunk each: tens of megabytes of events, far beyond the socket buffers.
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'word '.repeat(100_000) }], stream: true });
    const url = new URL(`${t.http}/v1/agent/demo-agent/sync`);
    const { taskNumber, req } = await new Promise<{ taskNumber: string; req: http.ClientRequest }>((resolve, reject) => {
      const req = http.request(url, { method: 'POST', headers: { authorization: `Bearer ${me.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'idempotency-key': `stall-${Date.now()}` } }, (res) => {
        expect(res.statusCode).toBe(200);
        res.pause(); // reads nothing from here on
        resolve({ taskNumber: String(res.headers['x-task-number']), req });
      });
      req.on('error', () => undefined);
      req.once('error', reject);
      req.end(body);
    });
    try {
      const ended = await waitForStatus(t, me.key, taskNumber, ['已完成', '已取消', '已报错'], { sync: true });
      expect(ended.status).toBe('已取消');
    } finally {
      req.destroy();
    }
    // The gateway still answers everyone else.
    expect((await send(t, 'GET', `/v1/task-query/${taskNumber}`, { key: me.key })).status).toBe(200);
  }, 40_000);
});
