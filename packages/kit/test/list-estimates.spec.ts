import { ListEstimates, listTotal } from '../src/cache/list-estimates';

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

describe('listTotal', () => {
  const cap = 100;
  it('is the count up to the cap', async () => {
    expect(await listTotal({ counted: 42, cap, skip: 0, rowsOnPage: 20, pageSize: 20, estimate: async () => 9_999 })).toBe(42);
  });
  it('above the cap: the estimate, never below what the page showed nor below cap + 1', async () => {
    expect(await listTotal({ counted: 101, cap, skip: 0, rowsOnPage: 20, pageSize: 20, estimate: async () => 5_000 })).toBe(5_000);
    expect(await listTotal({ counted: 101, cap, skip: 6_000, rowsOnPage: 20, pageSize: 20, estimate: async () => 5_000 })).toBe(6_020);
    expect(await listTotal({ counted: 101, cap, skip: 0, rowsOnPage: 20, pageSize: 20, estimate: async () => 50 })).toBe(101);
  });
  it('a short page is the last one: the total is exact', async () => {
    expect(await listTotal({ counted: 101, cap, skip: 1_180, rowsOnPage: 19, pageSize: 100, estimate: async () => 5_000 })).toBe(1_199);
  });
  it('an empty page beyond the end does not grow the total with the page asked for', async () => {
    expect(await listTotal({ counted: 101, cap, skip: 999_800, rowsOnPage: 0, pageSize: 100, estimate: async () => 1_150 })).toBe(1_150);
    expect(await listTotal({ counted: 101, cap, skip: 999_800, rowsOnPage: 0, pageSize: 100, estimate: async () => 5_000_000 })).toBe(999_800);
  });
});
