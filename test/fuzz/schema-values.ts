import type { Rng } from './rng';

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
  $ref?: string;
  additionalProperties?: boolean | JsonSchema;
};

export type Resolver = (s: JsonSchema) => JsonSchema;

/** A value that a schema is likely to accept (close to valid, so mutations reach the deeper checks). */
export function plausible(schema: JsonSchema | undefined, rng: Rng, resolve: Resolver, depth = 0): unknown {
  if (!schema || depth > 6) return null;
  const s = resolve(schema);
  if (s.enum?.length) return rng.pick(s.enum);
  const alt = s.anyOf ?? s.oneOf;
  if (alt?.length) return plausible(rng.pick(alt), rng, resolve, depth + 1);
  if (s.allOf?.length) return plausible(s.allOf[0], rng, resolve, depth + 1);
  const type = Array.isArray(s.type) ? rng.pick(s.type.filter((t) => t !== 'null')) : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(s.properties ?? {})) if (s.required?.includes(k) || rng.chance(0.5)) out[k] = plausible(v, rng, resolve, depth + 1);
      return out;
    }
    case 'array':
      return Array.from({ length: Math.max(s.minItems ?? 0, rng.int(0, 2)) }, () => plausible(s.items, rng, resolve, depth + 1));
    case 'integer':
      return rng.int(Math.max(s.minimum ?? 0, -5), Math.min(s.maximum ?? 50, 50));
    case 'number':
      return rng.next() * Math.min(s.maximum ?? 2, 2);
    case 'boolean':
      return rng.chance(0.5);
    case 'string':
      if (s.format === 'date-time') return new Date(Date.now() - rng.int(0, 1e9)).toISOString();
      if (s.pattern === '^(\\d{14})?$') return '';
      return rng.pick(['hello', 'demo-agent', 'x', 'T20260101000000abcdef0123', 'platform', '1', '12.5']).slice(0, s.maxLength ?? 100);
    default:
      return rng.pick([null, 'x', 1, {}]);
  }
}
