import { AppError } from '@tollgate/kit';
import type { Actor } from '../domain/document';
import type { ActivityRepo, ActivityRow } from '../site/activity-repo';

export interface ListActivityInput {
  userId: number;
  allUsers: boolean;
  type: string;
  from: string;
  to: string;
  page: number;
  pageSize: number;
}

export const ACTIVITY_PAGE_MAX = 100;

function instant(value: string, loc: string): Date | undefined {
  if (!value) return undefined;
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(d.getTime())) throw AppError.field(['query', loc], `${loc}: must be a date (YYYY-MM-DD) or an ISO 8601 instant`);
  return d;
}

/** The caller's own activity; an admin may ask for anyone's, or everyone's. Newest first. */
export async function listActivity(repo: ActivityRepo, actor: Actor, input: ListActivityInput): Promise<{ rows: ActivityRow[]; total: number }> {
  const wantsOther = input.allUsers || (input.userId > 0 && input.userId !== actor.accountId);
  if (wantsOther && !actor.isAdmin) throw AppError.forbidden("only an admin may read other accounts' activity");
  const accountId = input.allUsers ? (input.userId > 0 ? input.userId : undefined) : input.userId > 0 ? input.userId : actor.accountId;
  const pageSize = Math.min(ACTIVITY_PAGE_MAX, Math.max(1, input.pageSize || 20));
  const page = Math.max(1, input.page || 1);
  const from = instant(input.from, 'from');
  const to = instant(input.to, 'to');
  return repo.list({ accountId, type: input.type || undefined, from, to, offset: (page - 1) * pageSize, limit: pageSize });
}
