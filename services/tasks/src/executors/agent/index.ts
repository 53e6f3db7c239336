import type { ChatMessage, Usage } from '../../domain/types';
import { baseCallParamsSchema, readSettings, withConversation } from '../common';
import { addUsage, callModel, noUsage, withSystemPrompt } from '../model-call';
import type { ExecutionInput, ExecutionIO, ExecutionOutput, KindExecutor } from '../types';
import { DEFAULT_MAX_STEPS, DEFAULT_TOOL_TIMEOUT_MS, agentSettingsSchema } from './settings';
import { runToolCall, toolSpecs, type ToolRecord } from './tools';

const STEP_SEPARATOR = '\n\n';

/**
 * The agent loop: the model gets the app's tools; each tool call it asks for is run and answered with a
 * `tool` message, until it answers without tools or `max_steps` model calls were made. Streamed runs
 * stream the assistant text of every step as produced (steps separated by a blank line); tool calls
 * show in `task_progress`, and in the result's `tool_calls`.
 */
async function runAgent(input: ExecutionInput, io: ExecutionIO): Promise<ExecutionOutput> {
  const settings = readSettings(agentSettingsSchema, input.app.settings);
  const tools = settings.tools ?? [];
  const maxSteps = settings.max_steps ?? DEFAULT_MAX_STEPS;
  const specs = toolSpecs(tools);
  const messages: ChatMessage[] = withSystemPrompt(input.app.systemPrompt, input.request.messages);
  const records: ToolRecord[] = [];
  const texts: string[] = [];
  let usage: Usage = noUsage();
  const report = (step: number) => io.reportProgress({ step, max_steps: maxSteps, tool_calls: records });

  for (let step = 1; ; step++) {
    let streamed = false;
    const onDelta = io.onDelta && (async (text: string) => {
      if (!streamed && texts.length > 0) await io.onDelta!(STEP_SEPARATOR);
      streamed = true;
      await io.onDelta!(text);
    });
    const reply = await callModel(input, io, { messages, tools: specs.length > 0 ? specs : undefined, onDelta });
    usage = addUsage(usage, reply.usage);
    if (reply.content) texts.push(reply.content);
    const calls = reply.toolCalls ?? [];
    const extra = { tool_calls: records, steps: step };
    if (calls.length === 0) return { content: texts.join(STEP_SEPARATOR), model: reply.model, finishReason: reply.finishReason, usage, extra };
    if (step >= maxSteps) {
      const note = `stopped after ${maxSteps} step${maxSteps === 1 ? '' : 's'} (max_steps) while the model still asked for ${calls.map((c) => c.name).join(', ')}`;
      if (io.onDelta) await io.onDelta(texts.length > 0 ? `${STEP_SEPARATOR}${note}` : note);
      return { content: [...texts, note].join(STEP_SEPARATOR), model: reply.model, finishReason: 'max_steps', usage, extra };
    }
    messages.push({ role: 'assistant', content: reply.content, tool_calls: calls });
    for (const call of calls) {
      const at = records.push({ id: call.id, step, name: call.name, arguments: call.arguments, status: 'running' }) - 1;
      await report(step);
      records[at] = await runToolCall(call, tools, { step, signal: io.signal, timeoutMs: settings.tool_timeout_ms ?? DEFAULT_TOOL_TIMEOUT_MS });
      await report(step);
      messages.push({ role: 'tool', tool_call_id: call.id, content: records[at].result ?? '' });
    }
  }
}

export const agentExecutor: KindExecutor = {
  settingsSchema: agentSettingsSchema,
  callParamsSchema: baseCallParamsSchema,
  prepare: (app, request) => withConversation(request, app),
  run: runAgent,
};
