import { TASK_KINDS, type TaskKind } from '@tollgate/kit';
import type { TasksContext } from '../../context';
import type { NewApp } from '../../repo/app-repo';

export const DEMO_APP_IDS = TASK_KINDS.map((kind) => `demo-${kind}`);

/**
 * Each demo app's settings show its kind offline and still answer a plain message with `Echo: <message>`:
 * the agent has two built-in tools (say `call tool current_time {}`), the chatbot keeps history, the
 * aiapp's template is the message itself, the workflow runs two named steps (template → model).
 */
export const DEMO_SETTINGS: Record<TaskKind, Record<string, unknown>> = {
  agent: {
    max_steps: 5,
    tools: [
      { name: 'current_time', description: 'The current date and time (UTC).', url: 'builtin:time' },
      { name: 'echo', description: 'Returns its arguments.', parameters: { type: 'object', properties: { text: { type: 'string' } } }, url: 'builtin:echo' },
    ],
  },
  chatbot: { history_window: 20 },
  aiapp: { template: '{{input}}' },
  workflow: {
    steps: [
      { type: 'template', output: 'question', template: '{{input}}' },
      { type: 'model', output: 'answer', prompt: '{{steps.question}}' },
    ],
  },
};

/**
 * One public demo app per kind on the offline echo provider. Apps that exist already are left alone,
 * except that a demo app still carrying the empty settings of the first release gets the current ones.
 */
export async function seedDemoApps(ctx: Pick<TasksContext, 'apps' | 'log'>): Promise<void> {
  const apps: NewApp[] = TASK_KINDS.map((kind) => ({
    id: `demo-${kind}`,
    kind,
    name: `Demo ${kind}`,
    ownerAccountId: null,
    provider: 'echo',
    model: 'echo-1',
    systemPrompt: `You are the Tollgate demo ${kind}.`,
    settings: DEMO_SETTINGS[kind],
    public: true,
    baseUrl: '',
    apiKey: '',
    timeoutMs: 0,
    reporterTokenHash: null,
  }));
  const created = await ctx.apps.createMissing(apps);
  let upgraded = 0;
  for (const app of apps.filter((a) => Object.keys(a.settings).length > 0)) upgraded += await ctx.apps.fillEmptySettings(app.id, app.settings);
  if (created > 0 || upgraded > 0) ctx.log.info({ created, upgraded }, 'demo apps seeded');
}
