import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Name of the key file made in the data folder when TOLLGATE_SECRET_KEY is not set. */
export const SECRET_KEY_FILE = 'secret-key';
const KEY_BYTES = 32;

/**
 * A 32-byte key written as 64 hex digits or as base64 (standard or URL-safe, padding optional);
 * null for anything else, so a config schema can refuse it.
 */
export function parseSecretKey(text: string): Buffer | null {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (!/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(t)) return null;
  const key = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return key.length === KEY_BYTES ? key : null;
}

/** A new random key, as written to the key file (base64). */
export const newSecretKeyText = (): string => randomBytes(KEY_BYTES).toString('base64');

/**
 * The key from `<dataDir>/secret-key`, created (mode 0600, never overwritten) on first use.
 * Used when TOLLGATE_SECRET_KEY is not set: the embedded default seals secrets without any setup.
 */
export function secretKeyFromDataDir(dataDir: string): { key: Buffer; file: string; created: boolean } {
  const dir = resolve(dataDir);
  const file = join(dir, SECRET_KEY_FILE);
  mkdirSync(dir, { recursive: true });
  let created = false;
  try {
    writeFileSync(file, `${newSecretKeyText()}\n`, { mode: 0o600, flag: 'wx' });
    created = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const key = parseSecretKey(readFileSync(file, 'utf8'));
  if (!key) throw new Error(`${file} does not hold a 32-byte key (64 hex digits or base64)`);
  return { key, file, created };
}
