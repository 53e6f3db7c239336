import type { Request, Response } from 'express';
import { AppError } from '@tollgate/kit';
import type { ClientReadableStream } from '@grpc/grpc-js';
import type { CompletionChunk, ExecuteRequest, Payer } from '@tollgate/protos/tasks';
import type { GatewayDeps } from '../deps';
import type { KeyPrincipal } from '../auth/api-key';
import { toAppError } from '../http/errors';
import { httpStatusFor } from '../http/http-status';
import { grpcMessages } from '../sse/grpc-stream';
import { openSse } from '../sse/sse-stream';
import { chunkJson, completionJson, submissionJson } from './tasks-render';
import { rpcFor } from '../http/request-id';

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
  /** Async only: where the final state is delivered. */
  webhook?: string;
}

/** The `Idempotency-Key` header: absent, or 1–255 characters (422 otherwise). */
export function idempotencyKeyOf(req: Request): string {
  const value = req.headers['idempotency-key'];
  if (value === undefined) return '';
  const key = Array.isArray(value) ? value[0] : value;
  if (key.length === 0 || key.length > 255) throw AppError.field(['header', 'Idempotency-Key'], 'Idempotency-Key must be 1 to 255 characters', 'string_length');
  return key;
}

/** Whom the tasks service admits an execution against: the key's limits and its account's level. */
export function payerOf(principal: Pick<KeyPrincipal, 'key' | 'account'>): Payer {
  return { quota: principal.key.quota, rpmLimit: principal.key.rpmLimit, concurrencyLimit: principal.key.concurrencyLimit, level: principal.account.level };
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
    webhook: mode === 'async' ? (ex.webhook ?? '') : '',
    // The tasks service admits the execution against this key (after its own checks) and settles
    // it by the task's outcome; the gateway neither admits, settles nor refunds executions.
    payer: payerOf(principal),
  };
}

/** Aborted when the client goes away before the response is complete. */
function clientGone(res: Response): AbortController {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller;
}

/** `stream:false`: the completion JSON, from one call to the tasks service. */
export async function executeJson(deps: GatewayDeps, principal: KeyPrincipal, ex: Execution, res: Response): Promise<void> {
  const gone = clientGone(res);
  const completion = await deps.upstreams.tasks.executeSync(toRequest(principal, ex, 'sync'), { ...rpcFor(res), timeoutMs: EXECUTION_DEADLINE_MS, signal: gone.signal });
  res.setHeader('X-Task-Number', completion.taskNumber);
  res.json(completionJson(completion));
}

const hasContent = (chunk: CompletionChunk) => chunk.choices.some((c) => c.delta?.content || c.finishReason);

/**
 * `stream:true`: `data: <chunk>` events as the model produces them, then `data: [DONE]`. The first
 * chunks (the role chunk) are held until there is content or an end, so a failure before any
 * content is an ordinary HTTP error (`{detail}`, Retry-After where it applies); a failure after
 * content ends the stream with an error event.
 */
export async function executeStream(deps: GatewayDeps, principal: KeyPrincipal, ex: Execution, req: Request, res: Response): Promise<void> {
  const gone = new AbortController();
  const closed = () => gone.abort();
  res.on('close', closed);
  // The kit's promisified client type does not see through the generated overloads of a streaming method.
  const call = deps.upstreams.tasks.executeStream(toRequest(principal, ex, 'sync'), { ...rpcFor(res), signal: gone.signal }) as unknown as ClientReadableStream<CompletionChunk>;
  const iterator = grpcMessages(call);
  const held: CompletionChunk[] = [];
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      held.push(next.value);
      if (hasContent(next.value)) break;
    }
  } catch (err) {
    res.off('close', closed);
    throw err;
  }
  if (held.length === 0) throw new AppError('INTERNAL', 'the tasks service ended the stream without a chunk');

  res.setHeader('X-Task-Number', held[0].taskNumber);
  const sse = openSse(req, res, { stallMs: deps.config.SSE_STALL_TIMEOUT_MS });
  // Who leaves mid-stream stops the run; the tasks service settles it (what was delivered is paid).
  sse.signal.addEventListener('abort', closed);
  try {
    // Each send waits while the client is behind: the gRPC stream, and the run behind it, wait with it.
    for (const chunk of held) await sse.send(chunkJson(chunk));
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      await sse.send(chunkJson(next.value));
    }
    await sse.send('[DONE]');
  } catch (err) {
    if (sse.closed) return;
    const e = toAppError(err);
    await sse.send({ error: { message: e.message, type: e.code.toLowerCase(), code: httpStatusFor[e.code] } });
  }
  sse.end();
}

/** The submission answer, from one call; the task runs on a worker. */
export async function executeAsync(deps: GatewayDeps, principal: KeyPrincipal, ex: Execution, res: Response): Promise<void> {
  res.json(submissionJson(await deps.upstreams.tasks.submitAsync(toRequest(principal, ex, 'async'), rpcFor(res))));
}
