import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The spec's key format: `ak-` followed by 32 characters (we issue base62 ones). */
export const API_KEY_PATTERN = /^ak-[A-Za-z0-9]{32}$/;

/** Characters of a key kept in clear for display (`ak-` + 8). */
export const KEY_PREFIX_LENGTH = 11;

function randomString(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export const newApiKey = (): string => `ak-${randomString(32)}`;
export const newUserToken = (): string => `tg-${randomString(40)}`;

export const sha256Hex = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Constant-time equality of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

export const displayKey = (prefix: string): string => `${prefix}...`;
