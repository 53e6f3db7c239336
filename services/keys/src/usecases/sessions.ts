import { randomBytes } from 'node:crypto';
import { AppError } from '@tollgate/kit';
import type { Account, SignInRequest, SignInResponse } from '@tollgate/protos/keys';
import { ENABLED } from '../domain/account-rules';
import { accountToMsg } from '../domain/mappers';
import { decoyHash, passwordMatches } from '../domain/passwords';
import { sameHash, sha256Hex } from '../domain/secrets';
import type { Account as AccountRow } from '../repo/prisma-types';
import type { KeysContext } from './context';

const WRONG = 'wrong email, password or user token';

/** A session secret: 32 random bytes, base64url. */
const newSessionToken = (): string => `ts-${randomBytes(32).toString('base64url')}`;

async function accountByPassword(ctx: KeysContext, email: string, password: string): Promise<AccountRow> {
  if (email.length > 320 || password.length > 256) throw AppError.unauthenticated(WRONG);
  const row = await ctx.accounts.findByEmail(email.trim().toLowerCase());
  const ok = await passwordMatches(row?.passwordHash ?? (await decoyHash()), password);
  if (!row || !row.passwordHash || !ok) throw AppError.unauthenticated(WRONG);
  return row;
}

async function accountByToken(ctx: KeysContext, token: string): Promise<AccountRow> {
  if (token.length > 256) throw AppError.unauthenticated(WRONG);
  const hash = sha256Hex(token);
  const row = await ctx.accounts.findByTokenHash(hash);
  if (!row || !sameHash(row.tokenHash, hash)) throw AppError.unauthenticated(WRONG);
  return row;
}

function usable(row: AccountRow, now: Date): void {
  if (row.status !== ENABLED) throw AppError.forbidden(`account is ${row.status}`);
  if (row.validUntil && row.validUntil < now) throw AppError.forbidden('account has expired');
}

/** Email + password or user token → a new session (secret returned once, stored hashed). */
export async function signIn(ctx: KeysContext, req: SignInRequest): Promise<SignInResponse> {
  const byToken = req.token !== '';
  if (!byToken && (req.email === '' || req.password === '')) throw AppError.unauthenticated('send email and password, or token');
  const row = byToken ? await accountByToken(ctx, req.token) : await accountByPassword(ctx, req.email, req.password);
  const now = ctx.now();
  usable(row, now);
  const sessionToken = newSessionToken();
  const expiresAt = new Date(now.getTime() + ctx.sessionTtlMs);
  await ctx.sessions.create({ tokenHash: sha256Hex(sessionToken), accountId: row.id, expiresAt });
  await ctx.sessions.deleteExpired(now).catch((err: unknown) => ctx.log.warn({ err }, 'could not remove expired sessions'));
  await ctx.touch(row.id);
  return { account: accountToMsg(row), sessionToken, expiresAt: expiresAt.toISOString() };
}

/** Session secret → account; unknown, expired or ended → UNAUTHENTICATED; disabled account → PERMISSION_DENIED. */
export async function authenticateSession(ctx: KeysContext, sessionToken: string): Promise<Account> {
  if (sessionToken.length === 0 || sessionToken.length > 128) throw AppError.unauthenticated('no valid session: sign in again');
  const hash = sha256Hex(sessionToken);
  const session = await ctx.sessions.findByTokenHash(hash);
  const now = ctx.now();
  if (!session || session.expiresAt <= now) throw AppError.unauthenticated('no valid session: sign in again');
  const row = await ctx.accounts.findById(session.accountId);
  if (!row) throw AppError.unauthenticated('no valid session: sign in again');
  usable(row, now);
  await ctx.touch(row.id);
  return accountToMsg(row);
}

export async function signOut(ctx: KeysContext, sessionToken: string): Promise<Record<string, never>> {
  if (sessionToken.length > 0 && sessionToken.length <= 128) await ctx.sessions.deleteByTokenHash(sha256Hex(sessionToken));
  return {};
}
