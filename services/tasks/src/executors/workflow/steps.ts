import type { Usage } from '../../domain/types';
import { ProviderError, isProviderError } from '../../providers';
import { HttpCallError, answerValue, httpCall } from '../http-call';
import { callModel, withSystemPrompt } from '../model-call';
import { render } from '../template';
import type { ExecutionInput, ExecutionIO } from '../types';
import type { HttpStep, ModelStep, Step } from './settings';

/** What the steps' templates see: `{{input}}`, `{{call_params.x}}`, `{{steps.<output>}}`. */
export interface Scope {
  input: string;
  call_params: Record<string, unknown>;
  steps: Record<string, unknown>;
}

export interface StepResult {
  value: unknown;
  usage?: Usage;
  model?: string;
  /** True when the value was already handed to onDelta as it was produced. */
  streamed?: boolean;
}

/** A step could not do its work: the message says why, the runner names the step. */
class StepProblem extends Error {
  constructor(
    readonly reason: 'upstream' | 'timeout',
    message: string,
  ) {
    super(message);
  }
}

function filled(text: string, scope: Scope): string {
  const { text: out, missing } = render(text, scope);
  if (missing.length > 0) throw new StepProblem('upstream', `${missing.map((p) => `{{${p}}}`).join(', ')} ha${missing.length === 1 ? 's' : 've'} no value`);
  return out;
}

function filledJson(value: unknown, scope: Scope): unknown {
  if (typeof value === 'string') return filled(value, scope);
  if (Array.isArray(value)) return value.map((v) => filledJson(v, scope));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, filledJson(v, scope)]));
  return value;
}

async function modelStep(step: ModelStep, scope: Scope, input: ExecutionInput, io: ExecutionIO, onDelta?: (text: string) => Promise<void>): Promise<StepResult> {
  const system = step.system === undefined ? input.app.systemPrompt : filled(step.system, scope);
  const reply = await callModel(input, io, { messages: withSystemPrompt(system, [{ role: 'user', content: filled(step.prompt, scope) }]), model: step.model, maxTokens: step.max_tokens, temperature: step.temperature, onDelta });
  return { value: reply.content, usage: reply.usage, model: reply.model, streamed: onDelta !== undefined };
}

async function httpStep(step: HttpStep, scope: Scope, io: ExecutionIO): Promise<StepResult> {
  const url = filled(step.url, scope);
  if (!/^https?:\/\/[^/]/i.test(url)) throw new StepProblem('upstream', `url ${url.slice(0, 200)} is not an http(s) URL`);
  const method = step.method ?? 'GET';
  const headers: Record<string, string> = Object.fromEntries(Object.entries(step.headers ?? {}).map(([k, v]) => [k.toLowerCase(), filled(v, scope)]));
  let body: string | undefined;
  if (step.body !== undefined && method !== 'GET') {
    const value = filledJson(step.body, scope);
    body = typeof value === 'string' ? value : JSON.stringify(value);
    headers['content-type'] ??= typeof value === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
  }
  try {
    const answer = await httpCall({ url, method, headers, body, timeoutMs: step.timeout_ms ?? io.timeoutMs, signal: io.signal });
    if (!answer.ok) throw new StepProblem('upstream', `${method} ${url} answered HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
    return { value: answerValue(answer) };
  } catch (err) {
    if (err instanceof HttpCallError) throw new StepProblem(err.reason === 'timeout' ? 'timeout' : 'upstream', err.message);
    throw err;
  }
}

/** Runs one step; any failure of its own becomes a ProviderError naming the step (the task fails with it as comments). */
export async function runStep(step: Step, scope: Scope, input: ExecutionInput, io: ExecutionIO, onDelta?: (text: string) => Promise<void>): Promise<StepResult> {
  try {
    if (step.type === 'model') return await modelStep(step, scope, input, io, onDelta);
    if (step.type === 'http') return await httpStep(step, scope, io);
    return { value: filled(step.template, scope) };
  } catch (err) {
    if (io.signal.aborted) throw err;
    if (err instanceof StepProblem || isProviderError(err)) throw new ProviderError(err.reason, `workflow step ${step.output} (${step.type}) failed: ${err.message}`);
    throw err;
  }
}
