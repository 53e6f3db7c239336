import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `whsec_` + 40 random letters and digits (238 bits). */
export function newSecret(): string {
  const bytes = randomBytes(40);
  let out = '';
  for (const b of bytes) out += SECRET_ALPHABET[b % SECRET_ALPHABET.length];
  return `whsec_${out}`;
}

/** hex HMAC-SHA256(secret, "<t>.<raw body>") */
export function signatureOf(secret: string, t: number, body: string): string {
  return createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
}

/** `Tollgate-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex of the previous secret>]` */
export function signatureHeader(secrets: readonly string[], t: number, body: string): string {
  return [`t=${t}`, ...secrets.map((s) => `v1=${signatureOf(s, t, body)}`)].join(',');
}

/**
 * A receiver's check (also documented in docs/webhooks.md): one `v1` matches and `t` is within
 * `toleranceSec` of now.
 */
export function verifySignature(header: string, body: string, secret: string, toleranceSec = 300, nowSec = Math.floor(Date.now() / 1000)): boolean {
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSec - t) > toleranceSec) return false;
  const expected = Buffer.from(signatureOf(secret, t, body), 'hex');
  return parts.some(([k, v]) => k === 'v1' && v !== undefined && v.length === expected.length * 2 && timingSafeEqual(Buffer.from(v, 'hex'), expected));
}
