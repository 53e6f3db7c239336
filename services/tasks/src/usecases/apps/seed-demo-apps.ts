import { TASK_KINDS } from '@tollgate/kit';
import type { TasksContext } from '../../context';
import type { NewApp } from '../../repo/app-repo';

export const DEMO_APP_IDS = TASK_KINDS.map((kind) => `demo-${kind}`);

/** One public demo app per kind on the offline echo provider; apps that exist already are left alone. */
export async function seedDemoApps(ctx: Pick<TasksContext, 'apps' | 'log'>): Promise<void> {
  const apps: NewApp[] = TASK_KINDS.map((kind) => ({
    id: `demo-${kind}`,
    kind,
    name: `Demo ${kind}`,
    ownerAccountId: null,
    provider: 'echo',
    model: 'echo-1',
    systemPrompt: `You are the Tollgate demo ${kind}.`,
    settings: {},
    public: true,
    baseUrl: '',
    apiKey: '',
    timeoutMs: 0,
    reporterTokenHash: null,
  }));
  const created = await ctx.apps.createMissing(apps);
  if (created > 0) ctx.log.info({ created }, 'demo apps seeded');
}
