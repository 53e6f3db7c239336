import { AppError } from '@tollgate/kit';
import { SignInLimiter } from './sign-in-limit';

describe('SignInLimiter', () => {
  const limits = { perAccount: 3, perAddress: 5, windowMs: 60_000 };
  const refused = (f: () => unknown): AppError | undefined => {
    try {
      f();
      return undefined;
    } catch (err) {
      return err as AppError;
    }
  };

  it('refuses an account after its failures, with the seconds left in the window', () => {
    let now = 1_000_000;
    const l = new SignInLimiter(limits, () => now);
    for (let i = 0; i < 3; i++) l.begin('a', 'ip1').failed();
    now += 20_000;
    const err = refused(() => l.begin('a', 'ip2'));
    expect(err?.code).toBe('RESOURCE_EXHAUSTED');
    expect(err?.details.retryAfterSeconds).toBe(40);
    expect(refused(() => l.begin('b', 'ip1'))).toBeUndefined();
    now += 40_000;
    expect(refused(() => l.begin('a', 'ip1'))).toBeUndefined();
  });

  it('counts attempts under way as failures: guesses sent at once get no more checks than the limit', () => {
    const l = new SignInLimiter(limits, () => 0);
    const underWay = [l.begin('a', 'ip'), l.begin('a', 'ip'), l.begin('a', 'ip')];
    expect(refused(() => l.begin('a', 'ip'))?.code).toBe('RESOURCE_EXHAUSTED');
    // One of them was right: the account is free again, the address has that attempt back.
    underWay[0].succeeded();
    underWay[1].failed();
    underWay[2].failed();
    expect(refused(() => l.begin('a', 'ip'))).toBeUndefined();
    expect(refused(() => l.begin('b', 'ip'))).toBeUndefined();
  });

  it('gives an undecided attempt back, and ends an attempt once', () => {
    const l = new SignInLimiter(limits, () => 0);
    for (let i = 0; i < 10; i++) {
      const attempt = l.begin('a', 'ip');
      attempt.undecided();
      attempt.undecided();
      attempt.succeeded();
    }
    expect(refused(() => l.begin('a', 'ip'))).toBeUndefined();
  });

  it('refuses an address after failures across accounts; a success clears only the account', () => {
    const l = new SignInLimiter(limits, () => 0);
    for (let i = 0; i < 5; i++) l.begin(`acc${i}`, 'ip').failed();
    expect(refused(() => l.begin('fresh', 'ip'))?.code).toBe('RESOURCE_EXHAUSTED');
    expect(refused(() => l.begin('fresh', 'other'))).toBeUndefined();
    l.begin('x', 'ip2').failed();
    l.begin('x', 'ip2').failed();
    l.begin('x', 'ip2').succeeded();
    l.begin('x', 'ip2').failed();
    expect(refused(() => l.begin('x', 'ip3'))).toBeUndefined();
  });
});
