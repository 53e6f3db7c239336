import type { ChatMessage, ToolCall } from '../domain/types';
import { ProviderError, type ToolSpec } from './types';

/** A `tool_calls` item as OpenAI sends it: whole in a message, in fragments (by `index`) in a stream. */
export interface UpstreamToolCall {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

export const upstreamTools = (tools: ToolSpec[]) => tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));

/** The conversation in OpenAI's shape: assistant tool calls as `tool_calls` (content null when empty), tool answers with `tool_call_id`. */
export function upstreamMessages(messages: ChatMessage[]) {
  return messages.map((m) => {
    if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id, content: m.content };
    if (m.tool_calls?.length) {
      return { role: m.role, content: m.content || null, tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) };
    }
    return { role: m.role, content: m.content };
  });
}

export function toolCallsOf(calls: UpstreamToolCall[] | null | undefined): ToolCall[] {
  return (calls ?? []).map((c, i) => {
    if (!c.function?.name) throw new ProviderError('upstream', `upstream tool call ${i} has no function name`);
    return { id: c.id || `call_${i + 1}`, name: c.function.name, arguments: c.function.arguments ?? '' };
  });
}

/** Joins streamed tool-call fragments: the first fragment of an index brings id and name, later ones more argument text. */
export class ToolCallAssembler {
  private readonly byIndex = new Map<number, UpstreamToolCall & { function: { name?: string; arguments: string } }>();

  add(part: UpstreamToolCall): void {
    const index = part.index ?? this.byIndex.size;
    const call = this.byIndex.get(index) ?? { index, function: { arguments: '' } };
    if (part.id) call.id = part.id;
    if (part.function?.name && !call.function.name) call.function.name = part.function.name;
    if (part.function?.arguments) call.function.arguments += part.function.arguments;
    this.byIndex.set(index, call);
  }

  done(): ToolCall[] {
    return toolCallsOf([...this.byIndex.entries()].sort(([a], [b]) => a - b).map(([, c]) => c));
  }
}
