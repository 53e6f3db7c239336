import { hash, verify } from '@node-rs/argon2';
import { AppError } from '@tollgate/kit';

/** argon2id (the library's default algorithm) with OWASP's recommended memory/time cost. */
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

export function checkPassword(password: string): string {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) throw AppError.field(['body', 'password'], `password must be ${PASSWORD_MIN}–${PASSWORD_MAX} characters`);
  if (password.trim() === '') throw AppError.field(['body', 'password'], 'password must not be only whitespace');
  return password;
}

export const hashPassword = (password: string): Promise<string> => hash(password, OPTIONS);

export async function passwordMatches(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** A hash of a throw-away password, verified when the account is unknown so both paths cost the same. */
let decoy: Promise<string> | undefined;
export const decoyHash = (): Promise<string> => (decoy ??= hashPassword('decoy-password-never-used'));
