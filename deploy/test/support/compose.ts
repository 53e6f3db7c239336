import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO } from './apps';

export interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile?: string } | string;
  command?: string[] | string;
  user?: string;
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition?: string }> | string[];
  healthcheck?: { test: string[] | string; interval?: string };
}

export interface ComposeFile {
  name?: string;
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

export const COMPOSE_PATH = join(REPO, 'docker-compose.yml');

export function loadCompose(): ComposeFile {
  return parse(readFileSync(COMPOSE_PATH, 'utf8'), { merge: true }) as ComposeFile;
}

/** `${VAR:-default}` → default, `${VAR}` → '' (what compose does with nothing set in the shell). */
export function interpolate(value: string): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::?-([^}]*))?\}/g, (_m, _name: string, fallback?: string) => fallback ?? '');
}

/**
 * The environment a container gets when the shell sets nothing: `null` entries (pass-through from
 * the shell) stay unset. `names` lists every variable the file mentions, pass-through ones too.
 */
export function containerEnv(service: ComposeService): { env: Record<string, string>; names: string[] } {
  const env: Record<string, string> = {};
  const names: string[] = [];
  const entries: Array<[string, string | null]> = Array.isArray(service.environment)
    ? service.environment.map((e) => (e.includes('=') ? [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)] : [e, null]))
    : Object.entries(service.environment ?? {}).map(([k, v]) => [k, v === null ? null : String(v)]);
  for (const [name, value] of entries) {
    names.push(name);
    if (value !== null) env[name] = interpolate(value);
  }
  return { env, names };
}

export const commandOf = (s: ComposeService): string[] => (Array.isArray(s.command) ? s.command : (s.command ?? '').split(/\s+/).filter(Boolean));
export const healthTestOf = (s: ComposeService): string[] => (Array.isArray(s.healthcheck?.test) ? s.healthcheck.test : [String(s.healthcheck?.test ?? '')]);
export const dependsOf = (s: ComposeService): Record<string, { condition?: string }> =>
  Array.isArray(s.depends_on) ? Object.fromEntries(s.depends_on.map((d) => [d, {}])) : (s.depends_on ?? {});
