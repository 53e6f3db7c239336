import { effectiveLimits } from '../src/domain/limits';
import { Decimal, isDecimalText, moneyText } from '../src/domain/money';
import { chargeFor, reservationFor, snapshotOf } from '../src/domain/prices';
import { monthRange, usageRange } from '../src/domain/periods';
import { accountFor } from '../src/domain/access';
import { isAppError } from '@tollgate/kit';

const locOf = (fn: () => unknown): string[] | undefined => {
  try {
    fn();
  } catch (err) {
    if (isAppError(err)) return err.details.issues?.[0]?.loc;
    throw err;
  }
  return undefined;
};

const defaults = { rpm: { free: 60, pro: 600, enterprise: 6000 }, concurrency: { free: 5, pro: 20, enterprise: 100 } };

describe('prices', () => {
  const snap = snapshotOf([
    { kind: 'chatbot', basis: 'per_execution', unitPrice: new Decimal('0.5') },
    { kind: 'chatbot', basis: 'per_input_token', unitPrice: new Decimal('0.001') },
    { kind: 'chatbot', basis: 'per_output_token', unitPrice: new Decimal('0.002') },
    { kind: 'chatbot', basis: 'per_second', unitPrice: new Decimal('0.1') },
  ]);

  it('names every basis a kind is priced by', () => {
    expect(snap.basis).toBe('per_execution+per_input_token+per_output_token+per_second');
  });

  it('charges the sum of all prices, exactly in decimals', () => {
    expect(moneyText(chargeFor(snap, { inputTokens: 1000, outputTokens: 333, seconds: new Decimal('2.5') }))).toBe('2.416');
    expect(moneyText(chargeFor(snapshotOf([{ kind: 'agent', basis: 'per_execution', unitPrice: new Decimal('0.1') }]), { inputTokens: 0, outputTokens: 0, seconds: new Decimal(0) }).times(3))).toBe('0.3');
  });

  it('reserves fixed prices plus the estimate', () => {
    expect(moneyText(reservationFor(snap, { inputTokens: 0, outputTokens: 100, seconds: 0 }))).toBe('0.7');
  });
});

describe('limits', () => {
  it('uses the key override when set, else the level default (unknown level = free)', () => {
    expect(effectiveLimits(defaults, 'pro', { rpmLimit: 0, concurrencyLimit: 0 })).toEqual({ rpm: 600, concurrency: 20 });
    expect(effectiveLimits(defaults, 'enterprise', { rpmLimit: 7, concurrencyLimit: 0 })).toEqual({ rpm: 7, concurrency: 100 });
    expect(effectiveLimits(defaults, 'gold', { rpmLimit: 0, concurrencyLimit: 3 })).toEqual({ rpm: 60, concurrency: 3 });
  });
});

describe('money text', () => {
  it.each(['0', '1', '1.5', '12345678901234.123456'])('accepts %s', (s) => expect(isDecimalText(s)).toBe(true));
  it.each(['', '-1', '1e3', '1.1234567', ' 1', '1.', '.5', 'NaN'])('rejects %p', (s) => expect(isDecimalText(s)).toBe(false));
});

describe('periods', () => {
  it('turns a month into a UTC range, December into the next year', () => {
    expect(monthRange('2026-12')).toEqual({ start: new Date('2026-12-01T00:00:00Z'), end: new Date('2027-01-01T00:00:00Z') });
    expect(() => monthRange('2026-00')).toThrow(/YYYY-MM/);
  });

  it('defaults the usage range to this month up to the end of today', () => {
    const now = new Date('2026-11-21T10:00:00Z');
    expect(usageRange('', '', now)).toEqual({ from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-11-22T00:00:00Z') });
    expect(() => usageRange('2026-01-01', '2027-06-01', now)).toThrow(/366 days/);
    expect(() => usageRange('tomorrow', '', now)).toThrow(/ISO 8601/);
  });

  it.each(['2026-02-31', '2026-02-29', '2026-04-31', '2026-02-30T10:00:00Z', '2026-00-10', '2026-13-01', '2026-01-00'])('refuses the impossible date %p on query.from', (text) => {
    expect(locOf(() => usageRange(text, '2026-12-01'))).toEqual(['query', 'from']);
  });

  it('accepts a leap day and date-times', () => {
    expect(usageRange('2028-02-29', '2028-03-01T12:00:00Z').from).toEqual(new Date('2028-02-29T00:00:00Z'));
  });

  it('refuses years before 1970', () => {
    expect(locOf(() => usageRange('1969-12-31', '1970-01-02'))).toEqual(['query', 'from']);
    expect(locOf(() => usageRange('', '0000-01-01'))).toEqual(['query', 'to']);
    expect(locOf(() => monthRange('0000-01'))).toEqual(['path', 'month']);
    expect(locOf(() => monthRange('1969-12'))).toEqual(['path', 'month']);
    expect(monthRange('1970-01').start).toEqual(new Date(0));
  });

  it('names the query or path parameter at fault', () => {
    const now = new Date('2026-11-21T10:00:00Z');
    expect(locOf(() => monthRange('2026-13'))).toEqual(['path', 'month']);
    expect(locOf(() => usageRange('soon', '', now))).toEqual(['query', 'from']);
    expect(locOf(() => usageRange('', 'later', now))).toEqual(['query', 'to']);
    expect(locOf(() => usageRange('2026-02-01', '2026-01-01', now))).toEqual(['query', 'to']);
    expect(locOf(() => usageRange('2025-01-01', '2026-06-01', now))).toEqual(['query', 'to']);
  });
});

describe('access', () => {
  it("allows one's own account, any for an admin, and refuses another account", () => {
    expect(accountFor({ accountId: 4, isAdmin: false, apiKeyId: 0 }, 0)).toBe(4);
    expect(accountFor({ accountId: 1, isAdmin: true, apiKeyId: 0 }, 9)).toBe(9);
    expect(() => accountFor({ accountId: 4, isAdmin: false, apiKeyId: 0 }, 9)).toThrow(/another account/);
    expect(() => accountFor(undefined, 0)).toThrow(/not authenticated/);
  });
});
