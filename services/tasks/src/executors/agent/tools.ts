import { parseStorableJson } from '@tollgate/kit';
import type { ToolCall } from '../../domain/types';
import type { ToolSpec } from '../../providers';
import { asText } from '../template';
import { HttpCallError, httpCall } from '../http-call';
import { BUILTIN_TOOLS } from './builtin-tools';
import type { ToolSetting } from './settings';

/** One tool call as recorded in the task's progress and result. */
export interface ToolRecord {
  id: string;
  step: number;
  name: string;
  /** The parsed arguments, or the model's text when it is not a JSON object. */
  arguments: unknown;
  status: 'running' | 'ok' | 'error';
  http_status?: number;
  /** What the model was given back (the answer, or the error text). */
  result?: string;
  duration_ms?: number;
}

const EMPTY_PARAMETERS = { type: 'object', properties: {} };

/** The app's tools in the shape providers offer them to the model. */
export const toolSpecs = (tools: ToolSetting[]): ToolSpec[] =>
  tools.map((t) => ({ name: t.name, description: t.description ?? (t.url.startsWith('builtin:') ? BUILTIN_TOOLS[t.url.slice(8)].description : ''), parameters: t.parameters ?? EMPTY_PARAMETERS }));

function parseArguments(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = parseStorableJson(text || '{}');
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** GET and DELETE send the arguments as query parameters, the other methods as a JSON body. */
function requestOf(tool: ToolSetting, args: Record<string, unknown>) {
  const method = tool.method ?? 'POST';
  const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.5', ...tool.headers };
  if (method === 'GET' || method === 'DELETE') {
    const url = new URL(tool.url);
    for (const [k, v] of Object.entries(args)) url.searchParams.set(k, asText(v));
    return { url: url.toString(), method, headers };
  }
  return { url: tool.url, method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(args) };
}

/**
 * Runs one tool call. Whatever goes wrong with the tool (unknown name, bad arguments, HTTP error status,
 * timeout, unreachable) is not a task failure: it becomes the tool's answer (`error: …`) for the model.
 * Only the task's own cancellation propagates.
 */
export async function runToolCall(call: ToolCall, tools: ToolSetting[], options: { step: number; signal: AbortSignal; timeoutMs: number }): Promise<ToolRecord> {
  const started = Date.now();
  const args = parseArguments(call.arguments);
  const record: ToolRecord = { id: call.id, step: options.step, name: call.name, arguments: args ?? call.arguments, status: 'running' };
  const finish = (status: 'ok' | 'error', result: string, httpStatus?: number): ToolRecord => ({ ...record, status, result, ...(httpStatus !== undefined && { http_status: httpStatus }), duration_ms: Date.now() - started });

  const tool = tools.find((t) => t.name === call.name);
  if (!tool) return finish('error', `error: there is no tool named ${call.name}; available: ${tools.map((t) => t.name).join(', ') || 'none'}`);
  if (!args) return finish('error', `error: the arguments of ${call.name} must be a JSON object, got: ${call.arguments.slice(0, 200)}`);
  if (tool.url.startsWith('builtin:')) return finish('ok', asText(BUILTIN_TOOLS[tool.url.slice(8)].run(args)));
  try {
    const answer = await httpCall({ ...requestOf(tool, args), timeoutMs: tool.timeout_ms ?? options.timeoutMs, signal: options.signal });
    if (!answer.ok) return finish('error', `error: tool ${call.name} answered HTTP ${answer.status}: ${answer.text.slice(0, 2_000)}`, answer.status);
    return finish('ok', answer.text, answer.status);
  } catch (err) {
    if (err instanceof HttpCallError) return finish('error', `error: tool ${call.name}: ${err.message}`);
    throw err;
  }
}
