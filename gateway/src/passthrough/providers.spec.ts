import { ConfigError, ErrorCode, isAppError } from '@tollgate/kit';
import { loadGatewayConfig } from '../config';
import { providerForChannel } from './providers';

const problemsOf = (env: NodeJS.ProcessEnv): string[] => {
  try {
    loadGatewayConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
};

describe('PROVIDERS', () => {
  it('defaults to no providers', () => {
    expect(loadGatewayConfig({}).PROVIDERS).toEqual({});
  });

  it('parses providers and drops trailing slashes of base_url', () => {
    const config = loadGatewayConfig({ PROVIDERS: JSON.stringify({ openai: { base_url: 'https://api.openai.com/v1/', api_key: 'sk-1' }, 'local.vllm': { base_url: 'http://127.0.0.1:8000/v1', timeout_ms: 5000 } }) });
    expect(config.PROVIDERS).toEqual({ openai: { base_url: 'https://api.openai.com/v1', api_key: 'sk-1' }, 'local.vllm': { base_url: 'http://127.0.0.1:8000/v1', timeout_ms: 5000 } });
  });

  it.each([
    ['not JSON', '{openai:', /^PROVIDERS: must be a JSON object of providers/],
    ['a JSON array', '[]', /^PROVIDERS: /],
    ['a base_url that is not http(s)', JSON.stringify({ p: { base_url: 'ftp://example.com/v1' } }), /^PROVIDERS\.p\.base_url: must be an http\(s\) URL/],
    ['a missing base_url', JSON.stringify({ p: { api_key: 'k' } }), /^PROVIDERS\.p\.base_url: /],
    ['an unknown field', JSON.stringify({ p: { base_url: 'http://h/v1', apikey: 'k' } }), /^PROVIDERS\.p: .*apikey/],
    ['a name no channel can have', JSON.stringify({ 'bad name!': { base_url: 'http://h/v1' } }), /^PROVIDERS\.bad name!: provider names are/],
    ['a timeout that is not a positive integer', JSON.stringify({ p: { base_url: 'http://h/v1', timeout_ms: 0 } }), /^PROVIDERS\.p\.timeout_ms: /],
  ])('refuses %s', (_what, value, problem) => {
    expect(problemsOf({ PROVIDERS: value })).toEqual([expect.stringMatching(problem)]);
  });
});

describe('providerForChannel', () => {
  const registry = { fake: { base_url: 'http://127.0.0.1:1/v1', api_key: 'sk' }, open: { base_url: 'http://127.0.0.1:2/v1', timeout_ms: 50 } };

  it('finds the provider of a provider:<name> channel with its timeout', () => {
    expect(providerForChannel(registry, 'provider:fake', 1000)).toEqual({ name: 'fake', baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'sk', timeoutMs: 1000 });
    expect(providerForChannel(registry, 'provider:open', 1000)).toEqual({ name: 'open', baseUrl: 'http://127.0.0.1:2/v1', apiKey: undefined, timeoutMs: 50 });
  });

  it.each([
    ['provider:nowhere', ErrorCode.Unavailable],
    ['provider:constructor', ErrorCode.Unavailable],
    ['platform', ErrorCode.PermissionDenied],
  ])('refuses %s', (channel, code) => {
    let caught: unknown;
    try {
      providerForChannel(registry, channel, 1000);
    } catch (err) {
      caught = err;
    }
    expect(isAppError(caught) && caught.code).toBe(code);
  });
});
