import { ProbeClient, ProbeService } from '@tollgate/protos/common';
import { AppError, ErrorCode } from '../src/errors';
import { checkGrpcHealth, createGrpcClient, implement, startGrpcServer, type RunningGrpcServer } from '../src/grpc';
import { currentRequestContext, currentRequestId, msUntilDeadline, runWithRequestContext } from '../src/context';
import { silentLogger } from '../src/logging';

// A real gRPC server and client over loopback: errors, request ids, deadlines, health, shutdown.
describe('gRPC kit', () => {
  let behaviour: (requestId: string, signal: AbortSignal) => Promise<{ service: string; databaseTime: string }>;
  let server: RunningGrpcServer;
  let client: ReturnType<typeof createGrpcClient<ProbeClient>>;

  beforeAll(async () => {
    const log = silentLogger();
    server = await startGrpcServer({
      name: 'probe-test',
      port: 0,
      log,
      shutdownGraceMs: 2_000,
      services: [{ definition: ProbeService, implementation: implement(ProbeService, { ping: (_req, ctx) => behaviour(ctx.requestId, ctx.signal) }, log) }],
    });
    client = createGrpcClient(ProbeClient, server.address, { timeoutMs: 2_000 });
  });
  afterAll(async () => {
    client.close();
    await server.shutdown();
  });

  it('carries the current request id to the handler', async () => {
    behaviour = async (requestId) => ({ service: requestId, databaseTime: '' });
    const res = await runWithRequestContext({ requestId: 'req-42' }, () => client.ping({}));
    expect(res.service).toBe('req-42');
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
    behaviour = (_id, signal) =>
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
    behaviour = async () => {
      seen = currentRequestContext()?.deadline;
      return { service: '', databaseTime: '' };
    };
    await client.ping({}, { timeoutMs: 700 });
    expect(seen).toBeGreaterThan(before);
    expect(seen).toBeLessThanOrEqual(Date.now() + 700);

    // A nested call with a longer timeout of its own is cut to the outer call's deadline.
    const inherited = Date.now() + 60_000;
    await runWithRequestContext({ requestId: 'outer', deadline: inherited }, () => client.ping({}, { timeoutMs: 120_000 }));
    // gRPC sends the deadline as a relative timeout, so it arrives within a few ms of the original.
    expect(Math.abs(seen! - inherited)).toBeLessThan(5_000);
  });

  it('binds work to the deadline only while the call is being served, not a loop or timer that outlives it', async () => {
    let during = NaN;
    let after = NaN;
    let timerRan!: () => void;
    const ran = new Promise<void>((r) => (timerRan = r));
    behaviour = async () => {
      during = msUntilDeadline();
      setTimeout(() => {
        after = msUntilDeadline();
        timerRan();
      }, 50);
      return { service: '', databaseTime: '' };
    };
    await client.ping({}, { timeoutMs: 5_000 });
    await ran;
    expect(during).toBeGreaterThan(0);
    expect(during).toBeLessThanOrEqual(5_000);
    expect(after).toBe(Infinity);
  });

  it('serves the standard health service', async () => {
    expect(await checkGrpcHealth(server.address)).toBe(true);
    expect(await checkGrpcHealth('127.0.0.1:1', 300)).toBe(false);
  });

  it('has no request id outside a request', () => {
    expect(currentRequestId()).toBeUndefined();
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
