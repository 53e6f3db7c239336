import type { ChatMessage, ToolCall } from '../domain/types';

/** One `call tool <name> {json args}` directive of a user message. */
export interface ToolDirective {
  name: string;
  arguments: string;
}

const DIRECTIVE = /call tool ([A-Za-z0-9_-]{1,64})/gi;

/** The JSON object starting at `start` (braces balanced, strings respected), or null when there is none. */
function objectAt(text: string, start: number): string | null {
  if (text[start] !== '{') return null;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return text.slice(start);
}

/** Every `call tool <name> [{json}]` in the text, in order; arguments default to `{}`. */
export function toolDirectives(text: string): ToolDirective[] {
  const found: ToolDirective[] = [];
  for (const match of text.matchAll(DIRECTIVE)) {
    let at = match.index + match[0].length;
    while (text[at] === ' ') at++;
    found.push({ name: match[1], arguments: objectAt(text, at) ?? '{}' });
  }
  return found;
}

export function lastUserIndex(messages: ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') return i;
  return -1;
}

/**
 * What the echo model does next in an agent turn: the k-th directive of the last user message once k
 * tool-calling replies were made since it, or null when the directives are used up (time to answer).
 */
export function nextToolCall(messages: ChatMessage[]): ToolCall | null {
  const at = lastUserIndex(messages);
  if (at < 0) return null;
  const since = messages.slice(at + 1);
  const made = since.filter((m) => m.role === 'assistant' && m.tool_calls?.length).length;
  const directive = toolDirectives(messages[at].content)[made];
  return directive ? { id: `call_echo_${made + 1}`, name: directive.name, arguments: directive.arguments } : null;
}

/** `<name> returned <result>` for each tool answer since the last user message. */
export function toolResultsSince(messages: ChatMessage[]): string[] {
  const at = lastUserIndex(messages);
  const since = messages.slice(at + 1);
  const names = new Map(since.flatMap((m) => m.tool_calls ?? []).map((c) => [c.id, c.name]));
  return since.filter((m) => m.role === 'tool').map((m) => `${names.get(m.tool_call_id ?? '') ?? 'tool'} returned ${m.content}`);
}
