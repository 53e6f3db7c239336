import { startTestSystem, type TestSystem } from '../support/system';
import { TASKS_TEST_ENV, hello, newAccountWithKey, send } from './tasks-support';

// The task list's created_from / created_to: timestamps, or dates alone (UTC) where created_to
// names the last day included.
describe('task list by creation date', () => {
  let t: TestSystem | null;
  let key: string;
  let taskNumber: string;
  let day: string;

  const shift = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
  const list = (filter: Record<string, unknown>) => send(t!, 'POST', '/v1/task-query/list', { key, body: filter });
  const numbers = async (filter: Record<string, unknown>) => {
    const r = await list(filter);
    expect({ filter, status: r.status }).toEqual({ filter, status: 200 });
    return (r.body.items as Array<{ task_number: string }>).map((i) => i.task_number);
  };

  beforeAll(async () => {
    t = await startTestSystem(TASKS_TEST_ENV);
    if (!t) return;
    ({ key } = await newAccountWithKey(t));
    const r = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key, body: hello('dated') });
    taskNumber = r.body.task_number;
    const task = await send(t, 'GET', `/v1/task-query/${taskNumber}`, { key });
    day = (task.body.created_at as string).slice(0, 10); // the task's own UTC day, whatever the test's clock says
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('reads a date alone as that UTC day: from = its start, to = its end, so from = to = the day lists it', async () => {
    if (!t) return;
    expect(await numbers({ created_from: day })).toContain(taskNumber);
    expect(await numbers({ created_to: day })).toContain(taskNumber);
    expect(await numbers({ created_from: day, created_to: day })).toEqual([taskNumber]);
    expect(await numbers({ created_to: shift(day, -1) })).toEqual([]);
    expect(await numbers({ created_from: shift(day, 1) })).toEqual([]);
    expect(await numbers({ created_from: shift(day, -3), created_to: shift(day, -1) })).toEqual([]);
  });

  it('still takes timestamps, created_to exclusive', async () => {
    if (!t) return;
    expect(await numbers({ created_from: `${day}T00:00:00Z`, created_to: `${shift(day, 1)}T00:00:00+00:00` })).toEqual([taskNumber]);
    expect(await numbers({ created_to: `${day}T00:00:00Z` })).toEqual([]);
  });

  it('refuses impossible dates and other forms with 422 on the field', async () => {
    if (!t) return;
    for (const [field, value] of [
      ['created_from', '2026-02-30'],
      ['created_to', '2026-13-01'],
      ['created_from', '2026-11-22T10:00:00'],
      ['created_to', '22/11/2026'],
      ['created_from', 20261122],
      ['created_to', ''],
    ] as const) {
      const r = await list({ [field]: value });
      expect({ value, status: r.status, loc: r.body.detail?.[0]?.loc }).toEqual({ value, status: 422, loc: ['body', field] });
    }
  });
});
