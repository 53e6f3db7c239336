import type { Request, Response } from 'express';
import { AppError } from '@tollgate/kit';
import type { ClientReadableStream } from '@grpc/grpc-js';
import type { CompletionChunk, ExecuteRequest } from '@tollgate/protos/tasks';
import type { GatewayDeps } from '../deps';
import type { KeyPrincipal } from '../auth/api-key';
import { admitExecution, settleDisconnected, settleExecution } from '../billing/admission';
import { newTaskNumber } from '../billing/task-number';
import { toAppError } from '../http/errors';
import { httpStatusFor } from '../http/http-status';
import { grpcMessages } from '../sse/grpc-stream';
import { openSse } from '../sse/sse-stream';
import { chunkJson, completionJson, submissionJson } from './tasks-render';

/** A sync run may take as long as its app's upstream timeout; the tasks service enforces that one. */
const EXECUTION_DEADLINE_MS = 15 * 60_000;

export interface Execution {
  kind: string;
  appId: string;
  messages: Array<{ role: string; content: string }>;
  model?: string;
  temperature?: number;
  max_tokens?: number;
  call_params?: Record<string, unknown>;
  stream: boolean;
  idempotencyKey: string;
}

/** The `Idempotency-Key` header: absent, or 1–255 characters (422 otherwise). */
export function idempotencyKeyOf(req: Request): string {
  const value = req.headers['idempotency-key'];
  if (value === undefined) return '';
  const key = Array.isArray(value) ? value[0] : value;
  if (key.length === 0 || key.length > 255) throw AppError.field(['header', 'Idempotency-Key'], 'Idempotency-Key must be 1 to 255 characters', 'string_length');
  return key;
}

function toRequest(principal: KeyPrincipal, ex: Execution, mode: 'sync' | 'async'): ExecuteRequest {
  return {
    actor: principal.actor,
    kind: ex.kind,
    appId: ex.appId,
    messages: ex.messages,
    model: ex.model ?? '',
    temperature: ex.temperature,
    maxTokens: ex.max_tokens,
    callParams: ex.call_params ?? {},
    idempotencyKey: ex.idempotencyKey,
    taskNumber: '',
    stream: ex.stream,
    mode,
  };
}

function refund(deps: GatewayDeps, taskNumber: string): void {
  settleExecution(deps, taskNumber, 'refund').catch((err: unknown) => deps.log.warn({ err, taskNumber }, 'refund failed; billing settles from the task status or its admission sweep'));
}

/**
 * Admission after every check of the request (preflight), before the work: reserves quota, rate and
 * concurrency for a fresh task number. A call that fails refunds it; so does an Idempotency-Key race
 * that answered from an earlier task.
 */
async function admitted<T extends { taskNumber: string }>(deps: GatewayDeps, principal: KeyPrincipal, ex: Execution, run: (taskNumber: string) => Promise<T>): Promise<T> {
  const taskNumber = newTaskNumber();
  await admitExecution(deps, principal, { kind: ex.kind, appId: ex.appId, taskNumber, ...(ex.max_tokens && { estimate: { outputTokens: ex.max_tokens } }) });
  try {
    const out = await run(taskNumber);
    if (out.taskNumber !== taskNumber) refund(deps, taskNumber);
    return out;
  } catch (err) {
    refund(deps, taskNumber);
    throw err;
  }
}

/** Aborted when the client goes away before the response is complete. */
function clientGone(res: Response): AbortController {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller;
}

/** `stream:false`: the completion JSON. */
export async function executeJson(deps: GatewayDeps, principal: KeyPrincipal, ex: Execution, res: Response): Promise<void> {
  const request = toRequest(principal, ex, 'sync');
  const pre = await deps.upstreams.tasks.preflight(request);
  const gone = clientGone(res);
  const completion =
    pre.replay && pre.completion
      ? pre.completion
      : await admitted(deps, principal, ex, (taskNumber) => deps.upstreams.tasks.executeSync({ ...request, taskNumber }, { timeoutMs: EXECUTION_DEADLINE_MS, signal: gone.signal }));
  res.setHeader('X-Task-Number', completion.taskNumber);
  res.json(completionJson(completion));
}

/** `stream:true`: `data: <chunk>` events as the model produces them, then `data: [DONE]`. */
export async function executeStream(deps: GatewayDeps, principal: KeyPrincipal, ex: Execution, req: Request, res: Response): Promise<void> {
  const request = toRequest(principal, ex, 'sync');
  const pre = await deps.upstreams.tasks.preflight(request);
  if (pre.replay && pre.completion) {
    const c = completionJson(pre.completion);
    res.setHeader('X-Task-Number', c.task_number);
    const sse = openSse(req, res);
    const { id, created, model, choices, usage, task_number: _taskNumber, object: _object, ...extra } = c;
    const head = { id, object: 'chat.completion.chunk', created, model };
    sse.send({ ...head, choices: [{ index: 0, delta: { role: 'assistant', content: choices[0]?.message.content ?? '' }, finish_reason: null }], ...extra });
    sse.send({ ...head, choices: [{ index: 0, delta: {}, finish_reason: choices[0]?.finish_reason ?? 'stop' }], usage, ...extra });
    sse.send('[DONE]');
    return sse.end();
  }

  const gone = new AbortController();
  let delivered = false;
  let reserved = '';
  const messages = await admitted(deps, principal, ex, async (taskNumber) => {
    reserved = taskNumber;
    // The kit's promisified client type does not see through the generated overloads of a streaming method.
    const call = deps.upstreams.tasks.executeStream({ ...request, taskNumber }, { signal: gone.signal }) as unknown as ClientReadableStream<CompletionChunk>;
    const iterator = grpcMessages(call);
    const first = await iterator.next();
    if (first.done) throw new AppError('INTERNAL', 'the tasks service ended the stream without a chunk');
    return { taskNumber: first.value.taskNumber, first: first.value, iterator };
  });

  res.setHeader('X-Task-Number', messages.taskNumber);
  const sse = openSse(req, res);
  sse.signal.addEventListener('abort', () => {
    // Who left mid-stream pays for what was delivered (billing's disconnect rule), then the run stops.
    const settled = delivered ? settleDisconnected(deps, reserved, { contentDelivered: true }).catch(() => undefined) : Promise.resolve();
    void settled.finally(() => gone.abort());
  });
  try {
    for (let chunk = messages.first; ; ) {
      if (chunk.choices.some((c) => c.delta?.content)) delivered = true;
      sse.send(chunkJson(chunk));
      const next = await messages.iterator.next();
      if (next.done) break;
      chunk = next.value;
    }
    sse.send('[DONE]');
  } catch (err) {
    if (sse.closed) return;
    const e = toAppError(err);
    sse.send({ error: { message: e.message, type: e.code.toLowerCase(), code: httpStatusFor[e.code] } });
  }
  sse.end();
}

/** The submission answer; the task runs on a worker. */
export async function executeAsync(deps: GatewayDeps, principal: KeyPrincipal, ex: Execution, res: Response): Promise<void> {
  const request = toRequest(principal, ex, 'async');
  const pre = await deps.upstreams.tasks.preflight(request);
  const submission = pre.replay && pre.submission ? pre.submission : await admitted(deps, principal, ex, (taskNumber) => deps.upstreams.tasks.submitAsync({ ...request, taskNumber }));
  res.json(submissionJson(submission));
}
