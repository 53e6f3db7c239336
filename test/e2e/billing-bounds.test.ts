import { startTestSystem, type TestSystem } from '../support/system';
import { billingSql, call, newAccount, newApiKey } from './billing-support';
import { usedQuota } from './passthrough-support';
import { TASKS_TEST_ENV, hello, send } from './tasks-support';

// Amounts beyond what a money column holds (numeric(20, 6)): an admission that could cost more is
// a 422 naming max_tokens; a charge that comes out larger is the largest amount, and it never fails
// the settlements it travels with (other keys', other accounts').
describe('billing at the edge of an amount', () => {
  let t: TestSystem | null;
  beforeAll(async () => {
    t = await startTestSystem(TASKS_TEST_ENV);
    if (!t) return;
    for (const price of [
      { kind: 'workflow', basis: 'per_output_token', unit_price: '1000000000000' },
      { kind: 'chatbot', basis: 'per_output_token', unit_price: '100000' },
    ]) {
      const r = await call(t, 'PUT', '/v1/billing/prices', t.adminToken, price);
      if (r.status !== 200) throw new Error(`price not set: ${r.status} ${r.text}`);
    }
  });
  afterAll(async () => {
    await t?.stop();
  });

  const keyOf = async (level: 'pro' | 'enterprise') => {
    const account = await newAccount(t!, level);
    const key = await newApiKey(t!, account.token);
    return { id: key.id, key: key.key, token: account.token };
  };

  it('refuses an execution whose reservation is beyond an amount with 422 on max_tokens, not a 500', async () => {
    if (!t) return;
    const k = await keyOf('pro');
    const r = await send(t, 'POST', '/v1/chatbot/demo-chatbot/sync', { key: k.key, body: { ...hello(), max_tokens: 1_000_000_000 } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ['body', 'max_tokens'], type: 'too_big' });
    expect(await usedQuota(t, k)).toBe(0);
  });

  it('charges the largest amount for a charge beyond it, and settles every other execution it travels with', async () => {
    if (!t) return;
    const [big, other] = await Promise.all([keyOf('enterprise'), keyOf('pro')]);
    const words = hello(Array.from({ length: 300 }, (_, i) => `w${i}`).join(' '));
    const answers = await Promise.all([
      ...Array.from({ length: 3 }, () => send(t!, 'POST', '/v1/workflow/demo-workflow/sync', { key: big.key, body: words })),
      ...Array.from({ length: 5 }, () => send(t!, 'POST', '/v1/agent/demo-agent/sync', { key: other.key, body: hello() })),
    ]);
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
    for (let i = 0; i < 100 && (await usedQuota(t, other)) !== 5; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await usedQuota(t, other)).toBe(5);
    const open = await billingSql<{ n: number }>(t, `SELECT count(*)::int AS n FROM admissions WHERE state = 'open' AND api_key_id = ANY($1::int[])`, [[big.id, other.id]]);
    expect(open[0].n).toBe(0);
    const charged = await billingSql<{ charged: string }>(t, `SELECT charged::text AS charged FROM admissions WHERE api_key_id = $1`, [big.id]);
    expect(charged.map((r) => r.charged)).toEqual(Array(3).fill('99999999999999.999999'));
  });
});
