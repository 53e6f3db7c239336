import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { AppError, ErrorCode } from '../src/errors/app-error';
import { ERROR_METADATA_KEY, MAX_ERROR_METADATA_CHARS, MAX_STATUS_MESSAGE_CHARS, fromGrpcError, fromItemError, toGrpcError, toItemError, truncateText } from '../src/grpc/status-map';

describe('the domain error → gRPC mapping carries bounded text only', () => {
  it('cuts a message quoting 600 KB of client input', () => {
    const out = toGrpcError(AppError.notFound(`app ${'a'.repeat(600 * 1024)} not found for kind agent`));
    expect(out.code).toBe(GrpcStatus.NOT_FOUND);
    expect(out.details.length).toBeLessThanOrEqual(MAX_STATUS_MESSAGE_CHARS);
    expect(out.details.startsWith('app aaaa')).toBe(true);
  });

  it('cuts error details (field issues quoting input) to a bounded metadata value, keeping the code', () => {
    const issues = Array.from({ length: 500 }, (_, i) => ({ loc: ['body', 'x'.repeat(10_000)], msg: `bad ${'m'.repeat(50_000)}`, type: `t${i}` }));
    const out = toGrpcError(new AppError(ErrorCode.InvalidArgument, 'x'.repeat(100_000), { issues, retryAfterSeconds: 3, blob: 'b'.repeat(100_000) }));
    const raw = out.metadata.get(ERROR_METADATA_KEY)[0] as string;
    expect(raw.length).toBeLessThanOrEqual(MAX_ERROR_METADATA_CHARS);
    const back = fromGrpcError(Object.assign(new Error('x'), { code: out.code, details: out.details, metadata: out.metadata }) as ServiceError);
    expect(back.code).toBe(ErrorCode.InvalidArgument);
    expect(back.details.retryAfterSeconds).toBe(3);
    expect(back.details.issues!.length).toBeGreaterThan(0);
    expect(back.details.issues!.length).toBeLessThanOrEqual(20);
  });

  it('keeps small errors exactly as they were', () => {
    const err = AppError.field(['body', 'name'], 'name is required');
    const out = toGrpcError(err);
    const back = fromGrpcError(Object.assign(new Error('x'), { code: out.code, details: out.details, metadata: out.metadata }) as ServiceError);
    expect(back.message).toBe('name is required');
    expect(back.details).toEqual(err.details);
  });

  it('gives transport failures a stable message without addresses or channel internals', () => {
    const deadline = Object.assign(new Error('4 DEADLINE_EXCEEDED: Deadline exceeded after 10.000s,LB pick: 0.001s,remote_addr=127.0.0.1:43079'), {
      code: GrpcStatus.DEADLINE_EXCEEDED,
      details: 'Deadline exceeded after 10.000s,LB pick: 0.001s,remote_addr=127.0.0.1:43079',
      metadata: new Metadata(),
    }) as ServiceError;
    const refused = Object.assign(new Error('14 UNAVAILABLE: Stream refused by server'), { code: GrpcStatus.UNAVAILABLE, details: 'Stream refused by server', metadata: new Metadata() }) as ServiceError;
    const a = fromGrpcError(deadline);
    const b = fromGrpcError(refused);
    expect(a.code).toBe(ErrorCode.DeadlineExceeded);
    expect(b.code).toBe(ErrorCode.Unavailable);
    for (const e of [a, b]) expect(e.message).not.toMatch(/127\\.0\\.0\\.1|remote_addr|LB pick|Stream refused/);
    expect(a.cause).toBe(deadline);
  });

  it('never splits a surrogate pair when cutting', () => {
    const cut = truncateText('😀'.repeat(10), 6);
    expect(cut.length).toBeLessThanOrEqual(6);
    expect(() => encodeURIComponent(cut)).not.toThrow();
  });
});

describe('database failures that mean "not now"', () => {
  it('become UNAVAILABLE (503, retryable), while other unknown errors stay INTERNAL without their message', () => {
    const tooMany = Object.assign(new Error('Too many database connections opened: sorry, too many clients already'), { name: 'PrismaClientKnownRequestError', code: 'P2037' });
    const pgShutdown = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const wrapped = new Error('query failed', { cause: Object.assign(new Error('x'), { code: '53300' }) });
    for (const err of [tooMany, pgShutdown, wrapped]) {
      const out = toGrpcError(err);
      expect(out.code).toBe(GrpcStatus.UNAVAILABLE);
      expect(out.details).not.toMatch(/clients|administrator/);
    }
    const bug = toGrpcError(new TypeError('cannot read properties of undefined'));
    expect(bug.code).toBe(GrpcStatus.INTERNAL);
    expect(bug.details).toBe('internal error');
  });
});

describe('errors as items of a batch answer', () => {
  it('come back as the AppError a unary call would have given, details and all', () => {
    const refused = AppError.exhausted('insufficient quota: 0.5 left, 1 needed', { limit: 'quota', retryAfterSeconds: 60 });
    const back = fromItemError(toItemError(refused));
    expect(back.code).toBe(ErrorCode.ResourceExhausted);
    expect(back.message).toBe(refused.message);
    expect(back.details).toEqual({ limit: 'quota', retryAfterSeconds: 60 });
    const field = fromItemError(toItemError(AppError.field(['kind'], 'must be one of agent, workflow')));
    expect(field.code).toBe(ErrorCode.InvalidArgument);
    expect(field.details.issues).toEqual([expect.objectContaining({ loc: ['kind'], msg: 'must be one of agent, workflow' })]);
  });

  it('hide an unknown fault as INTERNAL and survive details that are not JSON', () => {
    const fault = toItemError(new TypeError('cannot read properties of undefined'));
    expect(fault).toMatchObject({ code: GrpcStatus.INTERNAL, message: 'internal error' });
    expect(fromItemError(fault).code).toBe(ErrorCode.Internal);
    const garbled = fromItemError({ code: GrpcStatus.RESOURCE_EXHAUSTED, message: 'x', details: '{not json' });
    expect(garbled.code).toBe(ErrorCode.ResourceExhausted);
  });
});
