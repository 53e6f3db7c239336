import { AppError } from '@tollgate/kit';
import type { Actor, AppRecord, TaskRecord } from './types';

/** An owner sees its own account's tasks; admin credentials see all. Anything else is "not found". */
export const canSeeTask = (actor: Actor | undefined, task: TaskRecord): boolean => !!actor && (actor.isAdmin || task.accountId === actor.accountId);

export const canSeeApp = (actor: Actor, app: AppRecord): boolean => actor.isAdmin || app.public || app.ownerAccountId === actor.accountId;

export const canChangeApp = (actor: Actor, app: AppRecord): boolean => actor.isAdmin || app.ownerAccountId === actor.accountId;

export const taskNotFound = (taskNumber: string) => AppError.notFound(`task ${taskNumber} not found`);

export function requireActor(actor: Actor | undefined): Actor {
  if (!actor) throw AppError.unauthenticated('no caller identity');
  return actor;
}
