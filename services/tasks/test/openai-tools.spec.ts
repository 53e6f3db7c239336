import { ToolCallAssembler, upstreamMessages } from '../src/providers/openai-tools';
import { isProviderError } from '../src/providers';

describe('OpenAI tool calls', () => {
  it('joins streamed fragments by index, in index order', () => {
    const calls = new ToolCallAssembler();
    calls.add({ index: 1, id: 'b', function: { name: 'second', arguments: '' } });
    calls.add({ index: 0, id: 'a', function: { name: 'first', arguments: '{"x"' } });
    calls.add({ index: 1, function: { arguments: '{}' } });
    calls.add({ index: 0, function: { arguments: ': 1}' } });
    expect(calls.done()).toEqual([
      { id: 'a', name: 'first', arguments: '{"x": 1}' },
      { id: 'b', name: 'second', arguments: '{}' },
    ]);
  });

  it('refuses a tool call without a function name', () => {
    const calls = new ToolCallAssembler();
    calls.add({ index: 0, function: { arguments: '{}' } });
    let err: unknown;
    try {
      calls.done();
    } catch (e) {
      err = e;
    }
    expect(isProviderError(err) && err.message).toBe('upstream tool call 0 has no function name');
  });

  it('sends tool turns in OpenAI shape', () => {
    expect(
      upstreamMessages([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'f', arguments: '{}' }] },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ]),
    ).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ]);
  });
});
