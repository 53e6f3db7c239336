/** Task states, exactly as the spec writes them on the wire. */
export const TaskStatus = {
  Waiting: '等待中',
  Running: '执行中',
  Completed: '已完成',
  Failed: '已报错',
  Cancelled: '已取消',
} as const;
export type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];

export const FINAL_TASK_STATUSES: readonly TaskStatus[] = [TaskStatus.Completed, TaskStatus.Failed, TaskStatus.Cancelled];

export const TASK_KINDS = ['agent', 'workflow', 'aiapp', 'chatbot'] as const;
export type TaskKind = (typeof TASK_KINDS)[number];

/** `tasks.status.<task_number>`: every state change of a task. */
export interface TaskStatusEvent {
  task_number: string;
  status: TaskStatus;
  kind: string;
  app_id: string;
  account_id: number;
  api_key_id: number;
  task_progress?: unknown;
  /** ISO 8601 time of the change. */
  at: string;
  /** Set on final states when known. */
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  duration_ms?: number;
  /** True when the work never started (cancelled while waiting, rejected before running). */
  never_ran?: boolean;
  /** On final states: whether the submission named its own `webhook` URL (absent on events older than this field). */
  webhook?: boolean;
}

export const taskStatusSubject = (taskNumber: string) => `tasks.status.${taskNumber}`;
export const TASK_STATUS_SUBJECTS = 'tasks.status.>';
export const TASKS_SUBMITTED_SUBJECT = 'tasks.submitted';
