import { AppError, TASK_KINDS } from '@tollgate/kit';
import type { Permissions } from '@tollgate/protos/keys';

export const ACCOUNT_LEVELS = ['free', 'pro', 'enterprise'] as const;
export const ENABLED = '启用';
export const DISABLED = '禁用';
export const STATUSES = [ENABLED, DISABLED] as const;
export const BOOTSTRAP_ROLE = 'bootstrap-admin';

/** What a new user may do unless told otherwise: every kind, read and write documents. */
export const defaultPermissions = (): Permissions => ({ kinds: [...TASK_KINDS], docsRead: true, docsWrite: true, admin: false });

export const adminPermissions = (): Permissions => ({ kinds: [...TASK_KINDS], docsRead: true, docsWrite: true, admin: true });

/** Stored JSON → Permissions (tolerant of missing fields). */
export function permissionsFromJson(json: unknown): Permissions {
  const p = (json ?? {}) as Record<string, unknown>;
  return {
    kinds: Array.isArray(p.kinds) ? p.kinds.filter((k): k is string => typeof k === 'string') : [],
    docsRead: p.docs_read === true,
    docsWrite: p.docs_write === true,
    admin: p.admin === true,
  };
}

export function permissionsToJson(p: Permissions): Record<string, unknown> {
  return { kinds: p.kinds, docs_read: p.docsRead, docs_write: p.docsWrite, admin: p.admin };
}

export function checkPermissions(p: Permissions): Permissions {
  const unknown = p.kinds.filter((k) => !(TASK_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0) throw AppError.field(['body', 'permissions', 'kinds'], `unknown kind(s): ${unknown.join(', ')}; allowed: ${TASK_KINDS.join(', ')}`, 'enum');
  return { ...p, kinds: TASK_KINDS.filter((k) => p.kinds.includes(k)) };
}

export function checkLevel(level: string): string {
  if (!(ACCOUNT_LEVELS as readonly string[]).includes(level)) throw AppError.field(['body', 'level'], `level must be one of ${ACCOUNT_LEVELS.join(', ')}`, 'enum');
  return level;
}

export function checkStatus(status: string, loc = 'status'): string {
  if (!(STATUSES as readonly string[]).includes(status)) throw AppError.field(['body', loc], `status must be one of ${STATUSES.join(', ')}`, 'enum');
  return status;
}

export function checkName(name: string, max = 100): string {
  const trimmed = name.trim();
  if (trimmed === '') throw AppError.field(['body', 'name'], 'name must not be empty', 'string_too_short');
  if (trimmed.length > max) throw AppError.field(['body', 'name'], `name must be at most ${max} characters`, 'string_too_long');
  return trimmed;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;

export function checkEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (!EMAIL.test(trimmed)) throw AppError.field(['body', 'email'], 'email must be an email address', 'value_error');
  return trimmed;
}
