import { AppError, instantField } from '@tollgate/kit';
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

const instant = (value: string, loc: string): Date | undefined => (value ? instantField(value, ['query', loc]) : undefined);

/** The caller's own activity; an admin may ask for anyone's, or everyone's. Newest first. */
export async function listActivity(repo: ActivityRepo, actor: Actor, input: ListActivityInput): Promise<{ rows: ActivityRow[]; total: number }> {
  const wantsOther = input.allUsers || (input.userId > 0 && input.userId !== actor.accountId);
  if (wantsOther && !actor.isAdmin) throw AppError.forbidden("only an admin may read other accounts' activity");
  const accountId = input.allUsers ? (input.userId > 0 ? input.userId : undefined) : input.userId > 0 ? input.userId : actor.accountId;
  const pageSize = Math.min(ACTIVITY_PAGE_MAX, Math.max(1, input.pageSize || 20));
  const page = Math.max(1, input.page || 1);
  const from = instant(input.from, 'from');
  const to = instant(input.to, 'to');
  if (from && to && from > to) throw AppError.field(['query', 'from'], 'from: must not be after to');
  return repo.list({ accountId, type: input.type || undefined, from, to, offset: (page - 1) * pageSize, limit: pageSize });
}
