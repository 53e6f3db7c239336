import { ListEstimates } from '../src/cache/list-estimates';

describe('ListEstimates', () => {
  it('asks once per filter while fresh, tells filters apart by content (dates included), and asks again in the background once old', async () => {
    let clock = 0;
    const asked: string[] = [];
    let figure = 500;
    const estimates = new ListEstimates<{ accountId?: number; from?: Date }>(async (f) => {
      asked.push(JSON.stringify(f));
      return figure + (f.accountId ?? 0);
    }, { maxAgeMs: 100, now: () => clock });

    expect(await estimates.of({ accountId: 1 })).toBe(501);
    figure = 900;
    expect(await estimates.of({ accountId: 1 })).toBe(501);
    expect(await estimates.of({ accountId: 2 })).toBe(902);
    expect(await estimates.of({ accountId: 1, from: new Date('2026-01-01T00:00:00Z') })).toBe(901);
    expect(await estimates.of({ accountId: 1, from: new Date('2026-01-02T00:00:00Z') })).toBe(901);
    expect(asked).toHaveLength(4);

    clock = 100;
    expect(await estimates.of({ accountId: 1 })).toBe(501); // the last figure, while a new one is asked
    await new Promise((r) => setImmediate(r));
    expect(await estimates.of({ accountId: 1 })).toBe(901);
    expect(asked).toHaveLength(5);
  });

  it('keeps the last figure when asking again fails, and waits for a filter never asked', async () => {
    let clock = 0;
    let fail = false;
    const estimates = new ListEstimates<{ k: string }>(async () => {
      if (fail) throw new Error('planner unavailable');
      return 7;
    }, { maxAgeMs: 10, now: () => clock });
    expect(await estimates.of({ k: 'a' })).toBe(7);
    fail = true;
    clock = 50;
    expect(await estimates.of({ k: 'a' })).toBe(7);
    await new Promise((r) => setImmediate(r));
    expect(await estimates.of({ k: 'a' })).toBe(7);
    await expect(estimates.of({ k: 'b' })).rejects.toThrow('planner unavailable');
  });
});
