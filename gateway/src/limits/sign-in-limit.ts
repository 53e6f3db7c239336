import { AppError } from '@tollgate/kit';

/** Failed sign-ins allowed per window: per account (email or token prefix) and per client address. */
export interface SignInLimits {
  perAccount: number;
  perAddress: number;
  windowMs: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = { perAccount: 5, perAddress: 20, windowMs: 15 * 60_000 };

/**
 * Counts failed sign-in attempts in fixed windows, in this gateway's memory (a second gateway
 * instance counts separately; docs/console.md). When either count is spent the next attempt is
 * refused with 429 and Retry-After, before any credential is checked; a success clears the account's count.
 */
export class SignInLimiter {
  private readonly failures = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS, private readonly now: () => number = Date.now) {}

  /** Throws RESOURCE_EXHAUSTED (429 + Retry-After) when the account or the address has no attempt left. */
  check(account: string, address: string): void {
    for (const [key, max] of [[`a:${account}`, this.limits.perAccount], [`ip:${address}`, this.limits.perAddress]] as const) {
      const entry = this.live(key);
      if (entry && entry.count >= max) {
        const seconds = Math.ceil((entry.resetAt - this.now()) / 1000);
        throw AppError.exhausted(`too many failed sign-in attempts: try again in ${seconds} s`, { limit: 'sign_in', retryAfterSeconds: seconds });
      }
    }
  }

  failed(account: string, address: string): void {
    for (const key of [`a:${account}`, `ip:${address}`]) {
      const entry = this.live(key) ?? { count: 0, resetAt: this.now() + this.limits.windowMs };
      entry.count += 1;
      this.failures.set(key, entry);
    }
    if (this.failures.size > 100_000) this.sweep();
  }

  succeeded(account: string): void {
    this.failures.delete(`a:${account}`);
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
