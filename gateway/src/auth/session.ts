import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { AppError } from '@tollgate/kit';

/** The console's session cookie (httpOnly, Secure, SameSite=Strict); its value is the session secret. */
export const SESSION_COOKIE = 'tollgate_session';
/** State-changing calls authenticated by the session cookie carry this header (docs/console.md). */
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The session secret from the Cookie header, if any. */
export function sessionCookie(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}

/**
 * The CSRF token of a session: derived from its secret (which never leaves the httpOnly cookie), so
 * another site can neither read nor compute it. Returned by the session endpoints.
 */
export const csrfTokenOf = (sessionToken: string): string => createHash('sha256').update(`csrf:${sessionToken}`).digest('base64url');

/** Refuses (403) a state-changing request whose X-CSRF-Token is not the session's. */
export function checkCsrf(req: Request, sessionToken: string): void {
  if (SAFE_METHODS.has(req.method)) return;
  const sent = req.headers[CSRF_HEADER];
  const expected = Buffer.from(csrfTokenOf(sessionToken));
  const got = Buffer.from(typeof sent === 'string' ? sent : '');
  if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
    throw new AppError('PERMISSION_DENIED', `missing or wrong ${CSRF_HEADER} header: a call made with the session cookie must send the CSRF token of the session`, { reason: 'csrf' });
  }
}

export function setSessionCookie(res: Response, sessionToken: string, expiresAt: Date): void {
  res.cookie(SESSION_COOKIE, sessionToken, { httpOnly: true, secure: true, sameSite: 'strict', path: '/', expires: expiresAt });
}

export function clearSessionCookie(res: Response): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, secure: true, sameSite: 'strict', path: '/' });
}
