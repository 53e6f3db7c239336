import { AppError, zodIssues } from '@tollgate/kit';
import { z } from 'zod';
import { messageSchema } from '../executors/common';
import type { TaskRequest } from './types';

/** The spec's execution parameters, checked again here: the service trusts no caller's validation. */
const schema = z.object({
  messages: z.array(messageSchema),
  model: z.string().max(200).optional(),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().positive().optional(),
  call_params: z.record(z.string(), z.unknown()),
  stream: z.boolean(),
  webhook: z.url({ protocol: /^https?$/ }).max(2048).optional(),
});

export function checkExecuteRequest(request: TaskRequest): TaskRequest {
  const result = schema.safeParse(request);
  if (!result.success) throw AppError.invalid(zodIssues(result.error, ['body']));
  return { ...result.data, model: result.data.model || undefined };
}
