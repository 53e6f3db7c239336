import { startTestSystem, type TestSystem } from '../support/system';
import { readReply, type Reply } from '../support/reply';
import { newUser } from './keys-support';

// Password guessing: guesses sent at once, and guesses through the password change of a stolen
// session or token. Its own system, so these failures spend no other test's attempts.
describe('sign-in limits under guessing', () => {
  let t: TestSystem | null;

  beforeAll(async () => {
    t = await startTestSystem();
  });
  afterAll(async () => {
    await t?.stop();
  });

  const post = async (path: string, method: string, body: unknown, token?: string): Promise<Reply> =>
    readReply(await t!.httpsFetch(`${t!.https}${path}`, { method, headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) }, body: JSON.stringify(body) }));
  const tally = (replies: Reply[]) => replies.reduce<Record<number, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {});

  it('checks no more guesses sent at once than the account may fail; the right password after them is refused too', async () => {
    if (!t) return;
    const email = `burst-${Date.now()}@example.com`;
    await newUser(t, { email, password: 'the right one' });
    const guesses = await Promise.all(Array.from({ length: 12 }, (_, i) => post('/api/v1/session', 'POST', { email, password: `wrong guess ${i}` })));
    expect(tally(guesses)).toEqual({ 401: 5, 429: 7 });
    for (const r of guesses.filter((g) => g.status === 429)) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await post('/api/v1/session', 'POST', { email, password: 'the right one' })).status).toBe(429);
  });

  it('limits wrong current passwords on a password change as failed sign-ins: a token cannot find the password by trying', async () => {
    if (!t) return;
    const u = await newUser(t, { email: `change-${Date.now()}@example.com`, password: 'the right one' });
    const change = (current: string) => post('/api/v1/users/me/password', 'PUT', { password: 'a brand new one', current_password: current }, u.token);
    const guesses = await Promise.all(Array.from({ length: 8 }, (_, i) => change(`wrong guess ${i}`)));
    expect(tally(guesses)).toEqual({ 422: 5, 429: 3 });
    const right = await change('the right one');
    expect(right.status).toBe(429);
    expect(right.body.message).toMatch(/try again in \d+ s/);
  });
});
