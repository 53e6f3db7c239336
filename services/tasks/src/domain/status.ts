import { AppError, FINAL_TASK_STATUSES, TaskStatus } from '@tollgate/kit';

const ALL: readonly string[] = Object.values(TaskStatus);

const NEXT: Record<TaskStatus, readonly TaskStatus[]> = {
  [TaskStatus.Waiting]: [TaskStatus.Running, TaskStatus.Cancelled],
  [TaskStatus.Running]: [TaskStatus.Completed, TaskStatus.Failed, TaskStatus.Cancelled],
  [TaskStatus.Completed]: [],
  [TaskStatus.Failed]: [],
  [TaskStatus.Cancelled]: [],
};

export const isTaskStatus = (value: string): value is TaskStatus => ALL.includes(value);
export const isFinal = (status: string): boolean => (FINAL_TASK_STATUSES as readonly string[]).includes(status);

export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return NEXT[from].includes(to);
}

/**
 * 409 naming both states when `from → to` is not an edge of the state machine
 * (等待中→执行中→已完成|已报错, 等待中|执行中→已取消). `执行中 → 执行中` is a progress report, not a transition.
 */
export function assertTransition(from: TaskStatus, to: TaskStatus, allowProgress: boolean): void {
  if (allowProgress && from === TaskStatus.Running && to === TaskStatus.Running) return;
  if (!canTransition(from, to)) {
    throw AppError.conflict(`illegal status transition: ${from} → ${to}`, { from, to });
  }
}
