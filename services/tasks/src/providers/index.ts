import { AppError } from '@tollgate/kit';
import type { AppRecord } from '../domain/types';
import { echoProvider } from './echo';
import { openAiCompatibleProvider } from './openai-compatible';
import type { ChatProvider } from './types';

export const PROVIDERS = ['echo', 'openai-compatible', 'external'] as const;

/** The provider that runs an app's model calls; `external` apps are run by their reporter, not here. */
export function providerFor(app: AppRecord): ChatProvider {
  switch (app.provider) {
    case 'echo':
      return echoProvider;
    case 'openai-compatible':
      return openAiCompatibleProvider({ baseUrl: app.baseUrl, apiKey: app.apiKey });
    default:
      throw new AppError('FAILED_PRECONDITION', `app ${app.id} runs outside Tollgate; submit its tasks with /async`);
  }
}

export * from './types';
