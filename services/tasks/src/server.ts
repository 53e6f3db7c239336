import { implement, type Logger } from '@tollgate/kit';
import { TasksService } from '@tollgate/protos/tasks';
import type { TasksContext } from './context';
import { chunk, completionExtra, decodeActor, decodeExecute, encodeApp, encodeCompletion, encodeSubmit, encodeTask } from './encode';
import type { ChatMessage } from './domain/types';
import { requireActor } from './domain/access';
import { createApp } from './usecases/apps/create-app';
import { deleteApp } from './usecases/apps/delete-app';
import { getApp } from './usecases/apps/get-app';
import { listApps } from './usecases/apps/list-apps';
import { rotateReporterToken } from './usecases/apps/rotate-reporter-token';
import { updateApp } from './usecases/apps/update-app';
import { batchGetTasks } from './usecases/batch-get-tasks';
import { batchUpdateStatus } from './usecases/batch-update-status';
import { executeSync, type StreamHead } from './usecases/execute-sync';
import { getTask } from './usecases/get-task';
import { listTasks } from './usecases/list-tasks';
import { InFlightGate } from './execution/in-flight-gate';
import { submitAsync } from './usecases/submit-async';
import { updateStatus } from './usecases/update-status';
import type { UpdateStatusRequest } from '@tollgate/protos/tasks';

const decodeUpdate = (u: UpdateStatusRequest) => ({
  actor: decodeActor(u.actor),
  reporterToken: u.reporterToken || undefined,
  taskNumber: u.taskNumber,
  status: u.status,
  progress: u.taskProgress,
  result: u.taskResult,
  comments: u.comments,
});

/** gRPC handlers: decode → use case → encode. */
export function tasksGrpc(ctx: TasksContext, log: Logger, limits: { maxInFlight: number }) {
  const gate = new InFlightGate(limits.maxInFlight);
  return implement(
    TasksService,
    {
      createApp: async ({ actor, app }) => {
        const a = app!;
        const out = await createApp(ctx, decodeActor(actor), {
          appId: a.appId,
          kind: a.kind,
          name: a.name,
          provider: a.provider || 'echo',
          model: a.model,
          systemPrompt: a.systemPrompt,
          settings: a.settings ?? {},
          public: a.public,
          baseUrl: a.baseUrl,
          apiKey: a.apiKey,
          timeoutMs: a.timeoutMs,
        });
        return encodeApp(out.app, out.reporterToken);
      },
      updateApp: async ({ actor, appId, patch }) => {
        const out = await updateApp(ctx, decodeActor(actor), appId, { ...patch });
        return encodeApp(out.app, out.reporterToken);
      },
      getApp: async ({ actor, appId }) => encodeApp(await getApp(ctx, decodeActor(actor), appId)),
      listApps: async ({ actor, page, kind }) => {
        const out = await listApps(ctx, decodeActor(actor), { page: page?.page ?? 0, pageSize: page?.pageSize ?? 0, kind });
        return { items: out.items.map((a) => encodeApp(a)), page: { page: out.page, pageSize: out.pageSize, total: out.total } };
      },
      deleteApp: async ({ actor, appId }) => encodeApp(await deleteApp(ctx, decodeActor(actor), appId)),
      rotateReporterToken: async ({ actor, appId }) => {
        const out = await rotateReporterToken(ctx, decodeActor(actor), appId);
        return encodeApp(out.app, out.reporterToken);
      },

      executeSync: (req, call) =>
        gate.run(async () => {
          const out = await executeSync(ctx, { ...decodeExecute(req, 'sync'), deadline: call.deadline }, { signal: call.signal });
          return encodeCompletion(out.completion, out.taskNumber, out.replayed);
        }),
      executeStream: (req, send, call) =>
        gate.run(async () => {
        let head: StreamHead | undefined;
        const input = decodeExecute(req, 'sync');
        const out = await executeSync(ctx, { ...input, request: { ...input.request, stream: true }, deadline: call.deadline }, {
          signal: call.signal,
          onStart: async (h) => {
            head = h;
            await send(chunk(h, { role: 'assistant' }, undefined, false, h.extra));
          },
          onDelta: (text) => send(chunk(head!, { content: text })),
        });
        const c = out.completion;
        if (!head) {
          head = { id: c.id, created: c.created, model: c.model, taskNumber: out.taskNumber, extra: {} };
          await send(chunk(head, { role: 'assistant' }, undefined, true, completionExtra(c)));
          await send(chunk(head, { content: (c.choices[0]?.message as ChatMessage | undefined)?.content ?? '' }, undefined, true));
        }
        await send(chunk(head, {}, { usage: c.usage, finishReason: c.choices[0]?.finish_reason ?? 'stop' }, out.replayed, completionExtra(c)));
      }),
      submitAsync: (req, call) => gate.run(async () => encodeSubmit(await submitAsync(ctx, { ...decodeExecute(req, 'async'), deadline: call.deadline }))),

      getTask: async ({ actor, taskNumber }) => encodeTask(await getTask(ctx, decodeActor(actor), taskNumber)),
      batchGetTasks: async ({ actor, taskNumbers }) => {
        const out = await batchGetTasks(ctx, requireActor(decodeActor(actor)), taskNumbers);
        return { items: out.items.map(encodeTask), notFound: out.notFound };
      },
      listTasks: async ({ actor, page, status, kind, appId, createdFrom, createdTo }) => {
        const out = await listTasks(ctx, requireActor(decodeActor(actor)), { page: page?.page ?? 0, pageSize: page?.pageSize ?? 0, statuses: status, kind, appId, createdFrom, createdTo });
        return { items: out.items.map(encodeTask), page: { page: out.page, pageSize: out.pageSize, total: out.total } };
      },
      updateStatus: async (req) => encodeTask(await updateStatus(ctx, decodeUpdate(req))),
      batchUpdateStatus: async ({ updates }) => {
        const results = await batchUpdateStatus(ctx, updates.map(decodeUpdate));
        return {
          results: results.map((r) => (r.ok ? { taskNumber: r.taskNumber, ok: true, task: encodeTask(r.task), errorCode: '', detail: '' } : { taskNumber: r.taskNumber, ok: false, errorCode: r.code, detail: r.detail })),
        };
      },
    },
    log,
  );
}
