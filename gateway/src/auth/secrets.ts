import { createHash } from 'node:crypto';

/** The spec's key format: `ak-` followed by 32 characters (the keys service issues base62 ones). */
export const API_KEY_FORMAT = /^ak-[A-Za-z0-9]{32}$/;

export const sha256Hex = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** `YYYYMMDDhhmmss` (UTC) → epoch ms; NaN when malformed. */
export function time14Ms(s: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(s);
  if (!m) return Number.NaN;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number);
  return Date.UTC(y, mo - 1, d, h, mi, se);
}
