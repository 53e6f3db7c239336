import { AppError, ErrorCode } from '@tollgate/kit';
import { openAiErrorOf, shouldRetry } from './error-object';

describe('the OpenAI error object of our errors', () => {
  it('writes a validation error as invalid_request_error naming the first field, with every issue in the message', () => {
    const e = AppError.invalid([
      { loc: ['body', 'messages', '0', 'role'], msg: 'Invalid option', type: 'invalid_value' },
      { loc: ['body', 'model'], msg: 'Required', type: 'missing' },
    ]);
    expect(openAiErrorOf(e)).toEqual({ message: 'messages.0.role: Invalid option; model: Required', type: 'invalid_request_error', code: 'invalid_value', param: 'messages.0.role' });
    expect(openAiErrorOf(AppError.field(['header', 'Idempotency-Key'], 'too long')).param).toBe('Idempotency-Key');
    expect(openAiErrorOf(AppError.field(['body'], 'malformed JSON', 'json_invalid'))).toMatchObject({ param: null, message: 'malformed JSON' });
  });

  it('tells a used-up quota from a rate or concurrency limit', () => {
    expect(openAiErrorOf(AppError.exhausted('insufficient quota: used up', { limit: 'quota' }))).toEqual({ message: 'insufficient quota: used up', type: 'insufficient_quota', code: 'insufficient_quota', param: null });
    expect(openAiErrorOf(AppError.exhausted('rate limit exceeded', { limit: 'rpm' }))).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
    expect(openAiErrorOf(AppError.exhausted('concurrency limit exceeded', { limit: 'concurrency' }))).toMatchObject({ code: 'rate_limit_exceeded' });
    expect(shouldRetry(AppError.exhausted('insufficient quota', { limit: 'quota' }))).toBe(false);
    expect(shouldRetry(AppError.exhausted('rate limit exceeded', { limit: 'rpm' }))).toBeUndefined();
    expect(shouldRetry(AppError.conflict('Idempotency-Key reused'))).toBe(false);
  });

  it.each([
    [ErrorCode.Unauthenticated, 'invalid_request_error', 'invalid_api_key'],
    [ErrorCode.PermissionDenied, 'invalid_request_error', 'permission_denied'],
    [ErrorCode.NotFound, 'invalid_request_error', 'model_not_found'],
    [ErrorCode.Conflict, 'invalid_request_error', 'conflict'],
    [ErrorCode.AlreadyExists, 'invalid_request_error', 'conflict'],
    [ErrorCode.FailedPrecondition, 'invalid_request_error', 'conflict'],
    [ErrorCode.PayloadTooLarge, 'invalid_request_error', 'request_too_large'],
    [ErrorCode.Unavailable, 'server_error', 'service_unavailable'],
    [ErrorCode.DeadlineExceeded, 'server_error', 'timeout'],
    [ErrorCode.Internal, 'server_error', null],
  ])('maps %s to type %s, code %s, keeping the message', (code, type, openAiCode) => {
    expect(openAiErrorOf(new AppError(code, 'what happened'))).toEqual({ message: 'what happened', type, code: openAiCode, param: null });
  });
});
