import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** Sealed values look like `enc:v1:<key id>:<base64 of iv ‖ tag ‖ ciphertext>`; anything else is a legacy plain value. */
const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Short public name of a key (first 8 hex digits of its SHA-256), stored with each sealed value to pick the key that opens it. */
export const secretKeyId = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/**
 * AES-256-GCM sealing of secrets stored in a database. Seals with the current key; opens values
 * sealed with the current or any previous key (rotation), and passes legacy plain values through.
 * The empty string stays empty (no secret).
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();
  readonly currentKeyId: string;

  constructor(
    private readonly current: Buffer,
    previous: Buffer[] = [],
  ) {
    if (current.length !== 32) throw new SecretBoxError('the secret key must be 32 bytes');
    this.currentKeyId = secretKeyId(current);
    for (const k of previous) this.keys.set(secretKeyId(k), k);
    this.keys.set(this.currentKeyId, current);
  }

  static isSealed(stored: string): boolean {
    return stored.startsWith(PREFIX);
  }

  seal(plain: string): string {
    if (plain === '') return '';
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${PREFIX}${this.currentKeyId}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** The plain value; throws SecretBoxError when it was sealed with a key this box does not hold, or was altered. */
  open(stored: string): string {
    if (!SecretBox.isSealed(stored)) return stored;
    const rest = stored.slice(PREFIX.length);
    const sep = rest.indexOf(':');
    const key = sep > 0 ? this.keys.get(rest.slice(0, sep)) : undefined;
    if (!key) throw new SecretBoxError(`sealed with key ${rest.slice(0, Math.max(sep, 0))}, which is neither the current secret key nor a previous one`);
    const raw = Buffer.from(rest.slice(sep + 1), 'base64');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('sealed value is truncated');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('sealed value failed authentication (altered, or sealed with another key of the same id)');
    }
  }

  /** Whether a stored value should be sealed again: plain, or sealed with a previous key. */
  needsResealing(stored: string): boolean {
    if (stored === '') return false;
    return !stored.startsWith(`${PREFIX}${this.currentKeyId}:`);
  }
}
