import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { silentLogger, TASK_STATUS_SUBJECTS, type ServiceHandle, type TaskStatusEvent } from '@tollgate/kit';
import { tasksService } from '../../services/tasks/src/service';
import { startTestSystem, type TestSystem } from '../support/system';
import { billingSql } from './billing-support';
import { TASKS_TEST_ENV, newAccountWithKey, send, waitForStatus } from './tasks-support';

const ROOT = join(__dirname, '..', '..');

async function taskRow(url: string, taskNumber: string): Promise<{ status: string; lease_owner: string | null; attempts: number } | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('SELECT status, lease_owner, attempts FROM tasks WHERE task_number = $1', [taskNumber])).rows[0];
  } finally {
    await client.end();
  }
}

// A tasks-service worker process killed (SIGKILL) while it holds a task's lease: another replica
// claims the task once the lease expires and finishes it, exactly once, billed once.
describe('a worker killed mid-task', () => {
  let t: TestSystem | null;
  let child: ChildProcess | undefined;
  let rescuer: ServiceHandle | undefined;

  beforeAll(async () => {
    // The embedded tasks service runs no worker here: the killed process and the rescuer do the work.
    t = await startTestSystem({ ...TASKS_TEST_ENV, TASKS_WORKERS: '0' });
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await rescuer?.stop();
    await t?.stop();
  });

  it('leaves the task to be finished once by another replica', async () => {
    if (!t) return;
    const tasksDb = t.system.databaseUrls.tasks;
    const account = await newAccountWithKey(t);
    const words = Array.from({ length: 10 }, (_, i) => `w${i}`).join(' ');
    const sub = await send(t, 'POST', '/v1/agent/demo-agent/async', { key: account.key, body: { messages: [{ role: 'user', content: words }], call_params: { echo_delay_ms: 300 } } });
    const n = sub.body.task_number;

    const billing = t.system.services.billing.address;
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: tasksDb, BILLING_GRPC_ADDR: billing, GRPC_PORT: '0', TASKS_WORKERS: '1', TASKS_LEASE_MS: '1500', TASKS_POLL_MS: '100', TASKS_WORKER_ID: 'doomed-worker', TASKS_SEED_DEMO_APPS: 'false', LOG_LEVEL: 'error' };
    delete env.NATS_URL;
    // node itself with tsx's loader (not the tsx CLI, whose inner node process would survive the kill).
    child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'services', 'tasks', 'src', 'main.ts')], { cwd: ROOT, env, stdio: 'ignore' });
    for (;;) {
      const row = await taskRow(tasksDb, n);
      if (row?.status === '执行中' && row.lease_owner === 'doomed-worker') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect((await send(t, 'GET', `/v1/task-query/${n}`, { key: account.key })).body.status).toBe('执行中');

    const finals: TaskStatusEvent[] = [];
    const watch = await t.system.bus.watch<TaskStatusEvent>(TASK_STATUS_SUBJECTS, (m) => m.data.task_number === n && m.data.status === '已完成' && finals.push(m.data));
    const config = tasksService.loadConfig({ DATABASE_URL: tasksDb, BILLING_GRPC_ADDR: billing, GRPC_PORT: '0', TASKS_WORKERS: '1', TASKS_LEASE_MS: '1500', TASKS_POLL_MS: '100', TASKS_WORKER_ID: 'rescuer' });
    rescuer = await tasksService.start(config, { bus: t.system.bus, log: silentLogger() });

    const done = await waitForStatus(t, account.key, n, ['已完成', '已报错', '已取消']);
    expect(done.status).toBe('已完成');
    expect(done.task_result.choices[0].message.content).toBe(`Echo: ${words}`);
    expect((await taskRow(tasksDb, n))!.attempts).toBe(2);
    for (;;) {
      const rows = await billingSql<{ type: string }>(t, "SELECT type FROM ledger_entries WHERE task_number = $1 AND type <> 'reserve'", [n]);
      if (rows.length > 0) {
        expect(rows.map((r) => r.type)).toEqual(['charge']);
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 500));
    expect(finals).toHaveLength(1);
    await watch.stop();
  });
});
