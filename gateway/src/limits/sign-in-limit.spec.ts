import { AppError } from '@tollgate/kit';
import { SignInLimiter } from './sign-in-limit';

describe('SignInLimiter', () => {
  const limits = { perAccount: 3, perAddress: 5, windowMs: 60_000 };
  const refused = (f: () => void): AppError | undefined => {
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
    for (let i = 0; i < 3; i++) {
      l.check('a', 'ip1');
      l.failed('a', 'ip1');
    }
    now += 20_000;
    const err = refused(() => l.check('a', 'ip2'));
    expect(err?.code).toBe('RESOURCE_EXHAUSTED');
    expect(err?.details.retryAfterSeconds).toBe(40);
    expect(refused(() => l.check('b', 'ip1'))).toBeUndefined();
    now += 40_000;
    expect(refused(() => l.check('a', 'ip1'))).toBeUndefined();
  });

  it('refuses an address after failures across accounts; a success clears only the account', () => {
    const l = new SignInLimiter(limits, () => 0);
    for (let i = 0; i < 5; i++) l.failed(`acc${i}`, 'ip');
    expect(refused(() => l.check('fresh', 'ip'))?.code).toBe('RESOURCE_EXHAUSTED');
    expect(refused(() => l.check('fresh', 'other'))).toBeUndefined();
    l.failed('x', 'ip2');
    l.failed('x', 'ip2');
    l.succeeded('x');
    l.failed('x', 'ip2');
    expect(refused(() => l.check('x', 'ip3'))).toBeUndefined();
  });
});
