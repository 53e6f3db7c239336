import { createGrpcClient, silentLogger, type EventBus, type GrpcClient, type ServiceHandle, type TaskStatusEvent, TASK_STATUS_SUBJECTS } from '@tollgate/kit';
import { TasksClient } from '@tollgate/protos/tasks';
import { tasksService } from '../../src/service';

export interface Replica {
  handle: ServiceHandle;
  client: GrpcClient<TasksClient>;
  stop(): Promise<void>;
}

/**
 * One tasks-service replica on a free port, with short leases and polls for tests. It runs without
 * billing: the executions these tests send carry no payer (unbilled), and billing's address points
 * nowhere so the replica never reconciles another deployment's admissions.
 */
export async function startReplica(databaseUrl: string, bus: EventBus, env: Record<string, string> = {}): Promise<Replica> {
  const config = tasksService.loadConfig({ DATABASE_URL: databaseUrl, BILLING_GRPC_ADDR: '127.0.0.1:9', GRPC_PORT: '0', LOG_LEVEL: 'silent', TASKS_POLL_MS: '200', TASKS_LEASE_MS: '1500', ...env });
  const handle = await tasksService.start(config, { bus, log: silentLogger() });
  const client = createGrpcClient(TasksClient, handle.address, { timeoutMs: 20_000 });
  return {
    handle,
    client,
    stop: async () => {
      client.close();
      await handle.stop();
    },
  };
}

/** Every task status event published on the bus from now on. */
export async function recordStatusEvents(bus: EventBus): Promise<{ events: TaskStatusEvent[]; of(taskNumber: string): TaskStatusEvent[]; waitFor(taskNumber: string, status: string): Promise<TaskStatusEvent>; stop(): Promise<void> }> {
  const events: TaskStatusEvent[] = [];
  const waiters: Array<() => void> = [];
  const sub = await bus.watch<TaskStatusEvent>(TASK_STATUS_SUBJECTS, (m) => {
    events.push(m.data);
    for (const w of waiters.splice(0)) w();
  });
  const of = (n: string) => events.filter((e) => e.task_number === n);
  return {
    events,
    of,
    async waitFor(taskNumber, status) {
      for (;;) {
        const found = of(taskNumber).find((e) => e.status === status);
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    stop: () => sub.stop(),
  };
}

export const owner = { accountId: 1, isAdmin: false, apiKeyId: 11 };
export const stranger = { accountId: 2, isAdmin: false, apiKeyId: 22 };
export const admin = { accountId: 99, isAdmin: true, apiKeyId: 990 };

export const userMessage = (content: string) => [{ role: 'user', content }];

/** An ExecuteRequest with the defaults filled in. */
export function exec(fields: Partial<import('@tollgate/protos/tasks').ExecuteRequest> & { appId: string; kind: string }): import('@tollgate/protos/tasks').ExecuteRequest {
  return { actor: owner, messages: userMessage('hello there'), model: '', idempotencyKey: '', taskNumber: '', stream: false, mode: '', webhook: '', ...fields };
}
