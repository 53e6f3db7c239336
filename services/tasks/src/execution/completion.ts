import type { CompletionJson } from '../domain/types';
import type { ExecutionOutput } from '../executors';

export function toCompletion(taskNumber: string, startedAt: Date, output: ExecutionOutput): CompletionJson {
  return {
    id: `chatcmpl-${taskNumber}`,
    object: 'chat.completion',
    created: Math.floor(startedAt.getTime() / 1000),
    model: output.model,
    choices: [{ index: 0, message: { role: 'assistant', content: output.content }, finish_reason: output.finishReason }],
    usage: output.usage,
    ...output.extra,
  };
}
