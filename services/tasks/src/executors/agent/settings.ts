import { z } from 'zod';
import { baseSettingsSchema } from '../common';
import { BUILTIN_TOOLS } from './builtin-tools';

export const DEFAULT_MAX_STEPS = 5;
export const MAX_MAX_STEPS = 50;
export const DEFAULT_TOOL_TIMEOUT_MS = 10_000;

const builtinUrls = Object.keys(BUILTIN_TOOLS).map((name) => `builtin:${name}`);

function isToolUrl(url: string): boolean {
  if (builtinUrls.includes(url)) return true;
  try {
    return ['http:', 'https:'].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

export const toolSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'name must be 1 to 64 letters, digits, "_" or "-"'),
  description: z.string().max(2_000).optional(),
  parameters: z.looseObject({ type: z.literal('object', 'parameters must be a JSON Schema of type "object"') }).optional(),
  url: z.string().max(2_000).refine(isToolUrl, `url must be an http(s) URL or one of ${builtinUrls.join(', ')}`),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(),
  headers: z.record(z.string(), z.string().max(4_000)).optional(),
  timeout_ms: z.number().int().min(1).max(120_000).optional(),
});
export type ToolSetting = z.infer<typeof toolSchema>;

export const agentSettingsSchema = baseSettingsSchema.extend({
  tools: z
    .array(toolSchema)
    .max(32)
    .superRefine((tools, ctx) => {
      tools.forEach((tool, i) => {
        if (tools.findIndex((t) => t.name === tool.name) !== i) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `tool name ${tool.name} is used twice` });
      });
    })
    .optional(),
  max_steps: z.number().int().min(1).max(MAX_MAX_STEPS).optional(),
  tool_timeout_ms: z.number().int().min(1).max(120_000).optional(),
});
