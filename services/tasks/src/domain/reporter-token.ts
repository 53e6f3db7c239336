import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `rt-` + 40 random letters/digits: the secret an externally-run app reports task states with. */
export function newReporterToken(): string {
  const bytes = randomBytes(40);
  return `rt-${Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join('')}`;
}

/** Only this hash is stored. */
export const hashReporterToken = (token: string): string => createHash('sha256').update(token).digest('hex');
