import type { ChatMessage } from '../src/domain/types';
import { toolDirectives } from '../src/providers/echo-directives';
import { echoProvider } from '../src/providers/echo';

const tools = [{ name: 'weather', description: '', parameters: { type: 'object' } }];
const options = { signal: new AbortController().signal, timeoutMs: 1_000 };
const chat = (messages: ChatMessage[], offered = tools) => echoProvider.chat({ model: 'echo-1', messages, tools: offered, callParams: {}, settings: {} }, options);

describe('echo provider with tools', () => {
  it('reads `call tool <name> {json}` directives, with nested and quoted braces, arguments defaulting to {}', () => {
    expect(toolDirectives('call tool a {"x": {"y": "}"}} then CALL TOOL b and call tool c {broken')).toEqual([
      { name: 'a', arguments: '{"x": {"y": "}"}}' },
      { name: 'b', arguments: '{}' },
      { name: 'c', arguments: '{broken' },
    ]);
    expect(toolDirectives('no directive here')).toEqual([]);
  });

  it('asks for one tool call per reply, in order, then answers with the tool results', async () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'call tool weather {"city":"A"} call tool weather {"city":"B"}' }];
    const first = await chat(messages);
    expect(first).toMatchObject({ content: '', finishReason: 'tool_calls', toolCalls: [{ id: 'call_echo_1', name: 'weather', arguments: '{"city":"A"}' }] });
    messages.push({ role: 'assistant', content: '', tool_calls: first.toolCalls }, { role: 'tool', tool_call_id: 'call_echo_1', content: 'sunny' });
    const second = await chat(messages);
    expect(second.toolCalls).toEqual([{ id: 'call_echo_2', name: 'weather', arguments: '{"city":"B"}' }]);
    messages.push({ role: 'assistant', content: '', tool_calls: second.toolCalls }, { role: 'tool', tool_call_id: 'call_echo_2', content: 'rain' });
    const last = await chat(messages);
    expect(last).toMatchObject({ finishReason: 'stop', content: 'Echo: call tool weather {"city":"A"} call tool weather {"city":"B"} | weather returned sunny | weather returned rain' });
    expect(last.toolCalls).toBeUndefined();
  });

  it('only echoes when no tools are offered', async () => {
    const reply = await chat([{ role: 'user', content: 'call tool weather {}' }], []);
    expect(reply).toMatchObject({ content: 'Echo: call tool weather {}', finishReason: 'stop' });
  });
});
