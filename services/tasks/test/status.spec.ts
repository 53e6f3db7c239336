import { AppError, TaskStatus } from '@tollgate/kit';
import { assertTransition, canTransition, isFinal } from '../src/domain/status';

const S = TaskStatus;
const ALL = Object.values(S);
const LEGAL: Array<[TaskStatus, TaskStatus]> = [
  [S.Waiting, S.Running],
  [S.Running, S.Completed],
  [S.Running, S.Failed],
  [S.Waiting, S.Cancelled],
  [S.Running, S.Cancelled],
];

describe('task state machine', () => {
  it.each(ALL.flatMap((from) => ALL.map((to) => [from, to] as const)))('%s → %s is legal only if it is an edge', (from, to) => {
    const legal = LEGAL.some(([f, t]) => f === from && t === to);
    expect(canTransition(from, to)).toBe(legal);
  });

  it('names both states in the 409 of an illegal transition', () => {
    const err = (() => {
      try {
        assertTransition(S.Completed, S.Running, false);
      } catch (e) {
        return e as AppError;
      }
    })();
    expect(err).toBeInstanceOf(AppError);
    expect(err!.code).toBe('CONFLICT');
    expect(err!.message).toContain('已完成');
    expect(err!.message).toContain('执行中');
  });

  it('treats 执行中 → 执行中 as a progress report only when allowed', () => {
    expect(() => assertTransition(S.Running, S.Running, true)).not.toThrow();
    expect(() => assertTransition(S.Running, S.Running, false)).toThrow(AppError);
    expect(() => assertTransition(S.Waiting, S.Waiting, true)).toThrow(AppError);
  });

  it('knows the final states', () => {
    expect(ALL.filter(isFinal).sort()).toEqual([S.Completed, S.Failed, S.Cancelled].sort());
  });
});
