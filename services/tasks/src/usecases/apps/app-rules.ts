import { AppError, TASK_KINDS } from '@tollgate/kit';
import { z } from 'zod';
import { isMetadataHost } from '../../webhooks/address-policy';
import { validateSettings } from '../../executors';
import { PROVIDERS } from '../../providers';

export const APP_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface AppFields {
  name: string;
  provider: string;
  model: string;
  systemPrompt: string;
  settings: Record<string, unknown>;
  baseUrl: string;
  timeoutMs: number;
}

const fieldIssue = (field: string, msg: string, type = 'value_error') => AppError.field(['body', field], msg, type);

/** Checks an app as it will be stored (after a patch is applied), field by field, 422 at body.<field>. */
export function checkAppFields(kind: string, app: AppFields): Record<string, unknown> {
  if (!(TASK_KINDS as readonly string[]).includes(kind)) throw fieldIssue('kind', `kind must be one of ${TASK_KINDS.join(', ')}`, 'enum');
  if (!app.name.trim() || app.name.length > 200) throw fieldIssue('name', 'name must be 1 to 200 characters');
  if (!(PROVIDERS as readonly string[]).includes(app.provider)) throw fieldIssue('provider', `provider must be one of ${PROVIDERS.join(', ')}`, 'enum');
  if (app.model.length > 200) throw fieldIssue('model', 'model must be at most 200 characters');
  if (app.provider === 'openai-compatible' && !app.model.trim()) throw fieldIssue('model', 'model is required for the openai-compatible provider');
  if (app.systemPrompt.length > 100_000) throw fieldIssue('system_prompt', 'system_prompt is longer than 100000 characters');
  if (app.timeoutMs < 0 || app.timeoutMs > 600_000) throw fieldIssue('timeout_ms', 'timeout_ms must be between 0 and 600000');
  if (app.provider === 'openai-compatible') {
    const url = z.url({ protocol: /^https?$/ }).safeParse(app.baseUrl);
    if (!url.success) throw fieldIssue('base_url', 'base_url must be an http(s) URL for the openai-compatible provider');
    if (isMetadataHost(new URL(app.baseUrl).hostname)) throw fieldIssue('base_url', 'base_url must not be a cloud metadata endpoint');
  }
  return validateSettings(kind, app.settings);
}

export function checkAppId(appId: string): void {
  if (!APP_ID_PATTERN.test(appId)) throw fieldIssue('app_id', 'app_id must be 1 to 64 letters, digits, "_", "-" or ".", starting with a letter or digit', 'pattern');
}

/** The model an app runs when it names none: the echo provider's own, or the provider's name. */
export const defaultModel = (provider: string): string => (provider === 'echo' ? 'echo-1' : provider);
