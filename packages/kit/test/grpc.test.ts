import { ProbeClient, ProbeService } from '@tollgate/protos/common';
import { AppError, ErrorCode } from '../src/errors';
import { checkGrpcHealth, createGrpcClient, implement, startGrpcServer, type CallContext, type RunningGrpcServer } from '../src/grpc';
import { silentLogger } from '../src/logging';

// A real gRPC server and client over loopback: errors, request ids, deadlines, health, shutdown.
describe('gRPC kit', () => {
  let behaviour: (ctx: CallContext) => Promise<{ service: string; databaseTime: string }>;
  let server: RunningGrpcServer;
  let client: ReturnType<typeof createGrpcClient<ProbeClient>>;

  beforeAll(async () => {
    const log = silentLogger();
    server = await startGrpcServer({
      name: 'probe-test',
      port: 0,
      log,
      shutdownGraceMs: 2_000,
      services: [{ definition: ProbeService, implementation: implement(ProbeService, { ping: (_req, ctx) => behaviour(ctx) }, log) }],
    });
    client = createGrpcClient(ProbeClient, server.address, { timeoutMs: 2_000 });
  });
  afterAll(async () => {
    client.close();
    await server.shutdown();
  });

  it('carries the given request id to the handler, and makes one up when none is given', async () => {
    behaviour = async (ctx) => ({ service: ctx.requestId, databaseTime: '' });
    expect((await client.ping({}, { requestId: 'req-42' })).service).toBe('req-42');
    const made = (await client.ping({})).service;
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    expect((await client.ping({})).service).not.toBe(made);
  });

  it('fails the call with the AppError of a handler that throws before its first await', async () => {
    behaviour = () => {
      throw AppError.notFound('no such probe');
    };
    const err = (await client.ping({}).catch((e: unknown) => e)) as AppError;
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe(ErrorCode.NotFound);
    expect(err.message).toBe('no such probe');
  });

  it('gives the client back the AppError the handler threw, details included', async () => {
    behaviour = async () => {
      throw AppError.invalid([{ loc: ['body', 'temperature'], msg: 'must be at most 2', type: 'too_big' }]);
    };
    const err = await client.ping({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(ErrorCode.InvalidArgument);
    expect((err as AppError).details.issues).toEqual([{ loc: ['body', 'temperature'], msg: 'must be at most 2', type: 'too_big' }]);
  });

  it('hides the message of an unexpected error', async () => {
    behaviour = async () => {
      throw new Error('password=hunter2 in a stack');
    };
    const err = (await client.ping({}).catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe(ErrorCode.Internal);
    expect(err.message).toBe('internal error');
  });

  it('enforces the deadline and tells the handler', async () => {
    let aborted = false;
    behaviour = ({ signal }) =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => {
          aborted = true;
          resolve({ service: 'late', databaseTime: '' });
        });
      });
    const err = (await client.ping({}, { timeoutMs: 100 }).catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe(ErrorCode.DeadlineExceeded);
    await new Promise((r) => setTimeout(r, 50));
    expect(aborted).toBe(true);
  });

  it("gives the handler the caller's deadline, and a call made while serving never outlives it", async () => {
    const before = Date.now();
    let seen: number | undefined;
    behaviour = async (ctx) => {
      seen = ctx.deadline;
      return { service: '', databaseTime: '' };
    };
    await client.ping({}, { timeoutMs: 700 });
    expect(seen).toBeGreaterThan(before);
    expect(seen).toBeLessThanOrEqual(Date.now() + 700);

    // A nested call with a longer timeout of its own is cut to the outer call's deadline.
    const inherited = Date.now() + 60_000;
    await client.ping({}, { requestId: 'outer', deadline: inherited, timeoutMs: 120_000 });
    // gRPC sends the deadline as a relative timeout, so it arrives within a few ms of the original.
    expect(Math.abs(seen! - inherited)).toBeLessThan(5_000);
  });

  it("leaves an answered call's signal alone: only a caller that goes away aborts it", async () => {
    let signal: AbortSignal | undefined;
    behaviour = async (ctx) => {
      signal = ctx.signal;
      return { service: '', databaseTime: '' };
    };
    await client.ping({});
    await new Promise((r) => setTimeout(r, 50));
    expect(signal!.aborted).toBe(false);
  });

  it('formats no stack trace for a failed call (the AppError it rejects with carries the callee\'s message and code) and leaves stack capture as it was', async () => {
    behaviour = async () => {
      throw AppError.notFound('no such probe');
    };
    const framesFormatted: number[] = [];
    const original = Error.prepareStackTrace;
    Error.prepareStackTrace = (err, frames) => {
      framesFormatted.push(frames.length);
      return `${err.name}: ${err.message}`;
    };
    let err: AppError;
    try {
      err = (await client.ping({}).catch((e: unknown) => e)) as AppError;
    } finally {
      Error.prepareStackTrace = original;
    }
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe(ErrorCode.NotFound);
    expect(err.message).toBe('no such probe');
    // grpc-js formats the caller's stack and its own error's on every failed call: none of them has a frame now.
    expect(framesFormatted.filter((n) => n > 0)).toEqual([]);
    expect(Error.stackTraceLimit).toBeGreaterThan(0);
    expect(new Error('here').stack!.split('\n').length).toBeGreaterThan(1);
  });

  it('serves the standard health service', async () => {
    expect(await checkGrpcHealth(server.address)).toBe(true);
    expect(await checkGrpcHealth('127.0.0.1:1', 300)).toBe(false);
  });
});

describe('gRPC graceful shutdown', () => {
  it('lets an in-flight call finish, then refuses new ones', async () => {
    const log = silentLogger();
    const server = await startGrpcServer({
      name: 'shutdown-test',
      port: 0,
      log,
      services: [
        {
          definition: ProbeService,
          implementation: implement(ProbeService, { ping: () => new Promise((r) => setTimeout(() => r({ service: 'done', databaseTime: '' }), 300)) }, log),
        },
      ],
    });
    const client = createGrpcClient(ProbeClient, server.address, { timeoutMs: 2_000 });
    const inFlight = client.ping({});
    await new Promise((r) => setTimeout(r, 50));
    const stopped = server.shutdown();
    expect((await inFlight).service).toBe('done');
    await stopped;
    const after = (await client.ping({}, { timeoutMs: 500 }).catch((e: unknown) => e)) as AppError;
    expect(after).toBeInstanceOf(AppError);
    expect([ErrorCode.Unavailable, ErrorCode.DeadlineExceeded]).toContain(after.code);
    client.close();
  });
});
