import { parseStorableJson, storableText } from '@tollgate/kit';
import { withTimeout } from '../providers';

export interface HttpRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** Sent as is; none for GET/HEAD. */
  body?: string;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface HttpAnswer {
  status: number;
  ok: boolean;
  contentType: string;
  text: string;
}

/** The call did not get an answer: it timed out or the server could not be reached. */
export class HttpCallError extends Error {
  constructor(
    readonly reason: 'timeout' | 'unreachable',
    message: string,
  ) {
    super(message);
    this.name = 'HttpCallError';
  }
}

/** Answers longer than this are cut (the model and the task record get the start). */
export const MAX_ANSWER_CHARS = 16_000;

/** One HTTP request of a tool or a workflow step, under its timeout and the task's cancellation. */
export async function httpCall(req: HttpRequest): Promise<HttpAnswer> {
  const budget = withTimeout(req.signal, req.timeoutMs);
  try {
    const res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body, signal: budget.signal });
    const text = storableText(await res.text());
    return { status: res.status, ok: res.ok, contentType: res.headers.get('content-type') ?? '', text: text.length > MAX_ANSWER_CHARS ? `${text.slice(0, MAX_ANSWER_CHARS)}…` : text };
  } catch (err) {
    if (budget.timedOut()) throw new HttpCallError('timeout', `${req.method} ${req.url} did not answer within ${req.timeoutMs} ms`);
    if (req.signal.aborted) throw err;
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new HttpCallError('unreachable', `${req.method} ${req.url} unreachable: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  } finally {
    budget.clear();
  }
}

/** Parsed JSON when the answer says it is JSON (and is), else the text. */
export function answerValue(answer: HttpAnswer): unknown {
  if (!/\bjson\b/i.test(answer.contentType)) return answer.text;
  try {
    return parseStorableJson(answer.text);
  } catch {
    return answer.text;
  }
}
