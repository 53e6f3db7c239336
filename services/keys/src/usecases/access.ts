import { AppError } from '@tollgate/kit';
import type { Actor } from '@tollgate/protos/common';
import type { ApiKey } from '../repo/prisma-types';
import type { KeysContext } from './context';

export function actorOf(actor: Actor | undefined): Actor {
  if (!actor || actor.accountId <= 0) throw AppError.unauthenticated('no authenticated caller');
  return actor;
}

/** The account whose keys a call manages: the caller's own, or (admin only) the one asked for. */
export function ownerOf(actor: Actor | undefined, requested: number): number {
  const a = actorOf(actor);
  if (requested > 0 && requested !== a.accountId) {
    if (!a.isAdmin) throw AppError.forbidden("only an admin may manage another account's keys");
    return requested;
  }
  return a.accountId;
}

/** A key the caller may manage; another account's key is reported exactly like a missing one. */
export async function ownedKey(ctx: KeysContext, actor: Actor | undefined, id: number): Promise<ApiKey> {
  const a = actorOf(actor);
  const key = id > 0 ? await ctx.keys.findById(id) : null;
  if (!key || (!a.isAdmin && key.accountId !== a.accountId)) throw AppError.notFound(`API key ${id} not found`);
  return key;
}

export function requireAdmin(actor: Actor | undefined): Actor {
  const a = actorOf(actor);
  if (!a.isAdmin) throw AppError.forbidden('this operation needs admin permission');
  return a;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export function paging(page: { page: number; pageSize: number } | undefined): { page: number; pageSize: number; skip: number } {
  const p = Math.max(1, page?.page || 1);
  const size = Math.min(MAX_PAGE_SIZE, Math.max(1, page?.pageSize || DEFAULT_PAGE_SIZE));
  return { page: p, pageSize: size, skip: (p - 1) * size };
}

export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string })?.code === 'P2002';
}
