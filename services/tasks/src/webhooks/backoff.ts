/** Longest wait between two attempts, whatever the base: keeps the defaults' span near a day. */
export const MAX_RETRY_WAIT_MS = 8 * 60 * 60_000;

/**
 * Wait before attempt `attempt + 1` after `attempt` failed ones: base · 2^(attempt−1), capped, with
 * ±20 % jitter so that receivers coming back are not hit by every retry at once.
 */
export function retryDelayMs(baseMs: number, attempt: number, random: () => number = Math.random): number {
  const exp = Math.min(baseMs * 2 ** Math.max(0, attempt - 1), MAX_RETRY_WAIT_MS);
  return Math.round(exp * (0.8 + 0.4 * random()));
}
