import type { LevelLimits } from '../config';

export type Level = 'free' | 'pro' | 'enterprise';

const levelOf = (level: string): Level => (level === 'pro' || level === 'enterprise' ? level : 'free');

/** The key's own limits when set (> 0), else the defaults of the account level (unknown level = free). */
export function effectiveLimits(defaults: LevelLimits, level: string, key: { rpmLimit: number; concurrencyLimit: number }) {
  const l = levelOf(level);
  return {
    rpm: key.rpmLimit > 0 ? key.rpmLimit : defaults.rpm[l],
    concurrency: key.concurrencyLimit > 0 ? key.concurrencyLimit : defaults.concurrency[l],
  };
}
