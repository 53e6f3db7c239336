import { z } from 'zod';
import { baseSettingsSchema, templateString } from '../common';
import { placeholders } from '../template';

export const MAX_STEPS = 20;

const output = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'output must be a name: letters, digits and "_", not starting with a digit');

const modelStep = z.object({
  type: z.literal('model'),
  output,
  prompt: templateString(),
  system: templateString().optional(),
  model: z.string().min(1).max(200).optional(),
  max_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
});

const httpStep = z.object({
  type: z.literal('http'),
  output,
  url: templateString(2_000),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(),
  headers: z.record(z.string(), templateString(4_000)).optional(),
  /** A string (sent as text) or JSON (sent as JSON); placeholders in every string. */
  body: z.unknown().optional(),
  timeout_ms: z.number().int().min(1).max(600_000).optional(),
});

const templateStep = z.object({ type: z.literal('template'), output, template: templateString() });

export const stepSchema = z.discriminatedUnion('type', [modelStep, httpStep, templateStep]);
export type Step = z.infer<typeof stepSchema>;
export type HttpStep = z.infer<typeof httpStep>;
export type ModelStep = z.infer<typeof modelStep>;

/** Every templated string of a step, with its path inside the step. */
export function templatedStrings(step: Step): Array<[Array<string | number>, string]> {
  const found: Array<[Array<string | number>, string]> = [];
  const walk = (value: unknown, path: Array<string | number>) => {
    if (typeof value === 'string') found.push([path, value]);
    else if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, i]));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
  };
  if (step.type === 'model') {
    walk(step.prompt, ['prompt']);
    walk(step.system, ['system']);
  } else if (step.type === 'http') {
    walk(step.url, ['url']);
    walk(step.headers, ['headers']);
    walk(step.body, ['body']);
  } else walk(step.template, ['template']);
  return found;
}

/** Why a placeholder cannot be used in a step that comes after the steps in `earlier`; null when it can. */
function badReference(path: string, earlier: string[]): string | null {
  const [root, name] = path.split('.');
  if (path === 'input') return null;
  if (root === 'call_params' && name !== undefined) return null;
  if (root === 'steps' && name !== undefined) return earlier.includes(name) ? null : `{{${path}}} refers to step ${name}, which is not an earlier step`;
  return `unknown variable {{${path}}}: use {{input}}, {{call_params.<name>}} or {{steps.<output>}}`;
}

export const workflowSettingsSchema = baseSettingsSchema.extend({
  steps: z
    .array(stepSchema)
    .min(1)
    .max(MAX_STEPS)
    .superRefine((steps, ctx) => {
      steps.forEach((step, i) => {
        const earlier = steps.slice(0, i).map((s) => s.output);
        if (earlier.includes(step.output)) ctx.addIssue({ code: 'custom', path: [i, 'output'], message: `output ${step.output} is used by an earlier step` });
        for (const [path, text] of templatedStrings(step)) {
          let paths: string[];
          try {
            paths = placeholders(text);
          } catch {
            continue;
          }
          for (const p of paths) {
            const problem = badReference(p, earlier);
            if (problem) ctx.addIssue({ code: 'custom', path: [i, ...path], message: problem });
          }
        }
      });
    })
    .optional(),
});

/** The call_params paths the steps use (`{{call_params.a.b}}` → `a.b`). */
export function callParamPaths(steps: Step[]): string[] {
  const paths = steps.flatMap((s) => templatedStrings(s).flatMap(([, text]) => placeholders(text)));
  return [...new Set(paths.filter((p) => p.startsWith('call_params.')).map((p) => p.slice('call_params.'.length)))];
}
