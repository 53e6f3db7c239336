import { randomBytes } from 'node:crypto';
import { SecretBox, SecretBoxError, parseSecretKey } from '../src/secrets';

describe('SecretBox', () => {
  const a = randomBytes(32);
  const b = randomBytes(32);

  it('seals with AES-256-GCM under a fresh IV each time and opens it again', () => {
    const box = new SecretBox(a);
    const one = box.seal('sk-upstream');
    const two = box.seal('sk-upstream');
    expect(one).toMatch(/^enc:v1:[0-9a-f]{8}:/);
    expect(one).not.toBe(two);
    expect(one).not.toContain('sk-upstream');
    expect(box.open(one)).toBe('sk-upstream');
    expect(box.seal('')).toBe('');
  });

  it('passes plain values through and marks them, and values under a previous key, for resealing', () => {
    const old = new SecretBox(a);
    const rotated = new SecretBox(b, [a]);
    const sealedOld = old.seal('k');
    expect(rotated.open('plain-legacy')).toBe('plain-legacy');
    expect(rotated.needsResealing('plain-legacy')).toBe(true);
    expect(rotated.open(sealedOld)).toBe('k');
    expect(rotated.needsResealing(sealedOld)).toBe(true);
    expect(rotated.needsResealing(rotated.seal('k'))).toBe(false);
    expect(() => new SecretBox(b).open(sealedOld)).toThrow(SecretBoxError);
  });

  it('refuses an altered value', () => {
    const box = new SecretBox(a);
    const sealed = box.seal('secret');
    const raw = Buffer.from(sealed.split(':')[3], 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => box.open(`${sealed.split(':').slice(0, 3).join(':')}:${raw.toString('base64')}`)).toThrow(SecretBoxError);
  });

  it('takes 32-byte keys in hex or base64 only', () => {
    expect(parseSecretKey(a.toString('hex'))).toEqual(a);
    expect(parseSecretKey(a.toString('base64'))).toEqual(a);
    expect(parseSecretKey(a.toString('base64url'))).toEqual(a);
    for (const bad of ['', 'short', a.toString('hex').slice(1), randomBytes(31).toString('base64'), randomBytes(33).toString('hex')]) expect(parseSecretKey(bad)).toBeNull();
  });
});
