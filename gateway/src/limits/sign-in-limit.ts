import { AppError } from '@tollgate/kit';

/** Failed sign-ins allowed per window: per account (email or token prefix) and per client address. */
export interface SignInLimits {
  perAccount: number;
  perAddress: number;
  windowMs: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = { perAccount: 5, perAddress: 20, windowMs: 15 * 60_000 };

/** One credential check under way; end it once with what the check said. */
export interface SignInAttempt {
  /** The credential was wrong: the attempt stays counted. */
  failed(): void;
  /** The credential was right: the account's count is cleared, the address gets its attempt back. */
  succeeded(): void;
  /** The check could not be made (a service unavailable): the attempt is given back. */
  undecided(): void;
}

/**
 * Counts failed credential checks (console sign-ins, current-password checks) in fixed windows, in
 * this gateway's memory (a second gateway instance counts separately; docs/console.md). An attempt
 * counts as failed from the moment it starts until its check says otherwise, so guesses sent at
 * once cannot all pass the limit before the first failure is known. When either count is spent
 * the next attempt is refused with 429 and Retry-After, before any credential is checked.
 */
export class SignInLimiter {
  private readonly failures = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS, private readonly now: () => number = Date.now) {}

  /** Throws RESOURCE_EXHAUSTED (429 + Retry-After) when the account or the address has no attempt left. */
  begin(account: string, address: string): SignInAttempt {
    const accountKey = `a:${account}`;
    const addressKey = `ip:${address}`;
    for (const [key, max] of [[accountKey, this.limits.perAccount], [addressKey, this.limits.perAddress]] as const) {
      const entry = this.live(key);
      if (entry && entry.count >= max) {
        const seconds = Math.max(1, Math.ceil((entry.resetAt - this.now()) / 1000));
        throw AppError.exhausted(`too many failed sign-in attempts: try again in ${seconds} s`, { limit: 'sign_in', retryAfterSeconds: seconds });
      }
    }
    this.add(accountKey, 1);
    this.add(addressKey, 1);
    if (this.failures.size > 100_000) this.sweep();
    let open = true;
    const end = (undo: () => void) => {
      if (open) undo();
      open = false;
    };
    return {
      failed: () => end(() => undefined),
      succeeded: () =>
        end(() => {
          this.failures.delete(accountKey);
          this.add(addressKey, -1);
        }),
      undecided: () =>
        end(() => {
          this.add(accountKey, -1);
          this.add(addressKey, -1);
        }),
    };
  }

  private add(key: string, n: 1 | -1): void {
    const entry = this.live(key);
    if (n < 0) {
      if (entry) entry.count = Math.max(0, entry.count - 1);
      return;
    }
    const counted = entry ?? { count: 0, resetAt: this.now() + this.limits.windowMs };
    counted.count += 1;
    this.failures.set(key, counted);
  }

  private live(key: string) {
    const entry = this.failures.get(key);
    if (entry && entry.resetAt <= this.now()) {
      this.failures.delete(key);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.failures) if (entry.resetAt <= now) this.failures.delete(key);
  }
}
