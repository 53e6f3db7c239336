import type { Request } from 'express';
import { AppError } from '@tollgate/kit';

/** The credential of `Authorization: Bearer <credential>`; 401 when the header is missing or malformed. */
export function bearerCredential(req: Request, what: string): string {
  const header = req.headers.authorization;
  if (!header) throw AppError.unauthenticated(`missing Authorization header: send "Authorization: Bearer <${what}>"`);
  const match = /^Bearer +(\S+) *$/i.exec(header);
  if (!match) throw AppError.unauthenticated(`malformed Authorization header: expected "Bearer <${what}>"`);
  return match[1];
}
