import { z } from 'zod';
import { AppError, ErrorCode } from '@tollgate/kit';

/** The same names the keys service accepts in a `provider:<name>` channel. */
const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const CHANNEL_PREFIX = 'provider:';

const providerEntry = z
  .object({
    base_url: z
      .url({ protocol: /^https?$/, message: 'must be an http(s) URL, the base URL an OpenAI client would use (e.g. https://api.openai.com/v1)' })
      .transform((u) => u.replace(/\/+$/, '')),
    api_key: z.string().min(1).optional(),
    timeout_ms: z.number().int().positive().optional(),
  })
  .strict();

/** `PROVIDERS`: JSON object `{"<name>": {"base_url": "...", "api_key": "...", "timeout_ms": 600000}}` (docs/passthrough.md). */
export const providersEnv = z
  .string()
  .default('{}')
  .transform((raw, ctx): unknown => {
    try {
      return JSON.parse(raw);
    } catch (err) {
      ctx.issues.push({ code: 'custom', input: raw, message: `must be a JSON object of providers: ${(err as Error).message}` });
      return z.NEVER;
    }
  })
  .pipe(
    z.record(z.string(), providerEntry).superRefine((providers, ctx) => {
      for (const name of Object.keys(providers).filter((n) => !PROVIDER_NAME.test(n))) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'provider names are letters, digits, . _ - (up to 64), as in provider:<name> channels' });
      }
    }),
  );

export type ProviderRegistry = z.infer<typeof providersEnv>;

export interface Provider {
  name: string;
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
}

/**
 * The upstream of a `provider:<name>` key. A name no provider is configured for is 503: the key
 * is valid, this gateway lacks the configuration (docs/passthrough.md).
 */
export function providerForChannel(registry: ProviderRegistry, channel: string, defaultTimeoutMs: number): Provider {
  if (!channel.startsWith(CHANNEL_PREFIX)) throw AppError.forbidden(`a ${channel} key cannot call the provider passthrough`);
  const name = channel.slice(CHANNEL_PREFIX.length);
  const entry = Object.hasOwn(registry, name) ? registry[name] : undefined;
  if (!entry) throw new AppError(ErrorCode.Unavailable, `provider "${name}" of this API key is not configured on this gateway`);
  return { name, baseUrl: entry.base_url, apiKey: entry.api_key, timeoutMs: entry.timeout_ms ?? defaultTimeoutMs };
}
