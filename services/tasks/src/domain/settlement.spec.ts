import { TaskStatus } from '@tollgate/kit';
import { settlementOf } from './settlement';
import type { TaskRecord, Usage } from './types';

const task = (usage: unknown): TaskRecord =>
  ({
    taskNumber: 'T1',
    status: TaskStatus.Completed,
    usage: usage as Usage,
    startedAt: new Date(1_000),
    finishedAt: new Date(2_500),
  }) as TaskRecord;

describe('settlementOf', () => {
  it('charges a completed task by its usage and duration', () => {
    expect(settlementOf(task({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }))).toEqual({ taskNumber: 'T1', outcome: 'charge', units: { inputTokens: 3, outputTokens: 4, seconds: '1.500' } });
  });

  it('never sends billing a count it refuses (stored before upstream usage was checked): negative, fractional, beyond 32 bits, not a number', () => {
    expect(settlementOf(task({ prompt_tokens: -5, completion_tokens: 1e20, total_tokens: 'x' })).units).toMatchObject({ inputTokens: 0, outputTokens: 2_147_483_647 });
    expect(settlementOf(task({ prompt_tokens: 1.5, completion_tokens: '7' })).units).toMatchObject({ inputTokens: 0, outputTokens: 0 });
  });
});
