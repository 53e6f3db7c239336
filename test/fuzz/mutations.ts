import type { Rng } from './rng';

export interface FuzzBody {
  kind: string;
  contentType?: string;
  bytes?: Buffer;
}

const ODD_PATH_VALUES = ['..', '%2e%2e', '%00', 'a%00b', '%ff', '%201', "'%20OR%201=1--", '*', '>', 'a.b', '-1', '0', '0x10', '1e3', '99999999999999999999', '%F0%9F%98%80', '%E2%80%AE', '%0d%0a', 'x'.repeat(5_000), 'y'.repeat(300)];
const ODD_STRINGS = ['', ' ', '\u0000', 'a\u0000b', '𝕏'.repeat(50), 'x'.repeat(70_000), '0x10', '1e3', ' 7 ', '-0', 'NaN', 'Infinity', '<script>', "' OR 1=1--", '../../etc/passwd', '%s%n', '\u202e'];
const CONTENT_TYPES = ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/x-www-form-urlencoded', 'application/json', 'application/octet-stream', '', 'garbage'];

export function oddPathValue(rng: Rng): string {
  return rng.pick(ODD_PATH_VALUES);
}

function wrongType(value: unknown, rng: Rng): unknown {
  const options: unknown[] = [null, true, 0, -1, 1.5, 2 ** 53, 'text', [], {}, [1, 'a'], { a: { b: 1 } }];
  const pick = rng.pick(options);
  return typeof pick === typeof value ? rng.pick(ODD_STRINGS) : pick;
}

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i += 1) v = i % 2 ? [v] : { a: v };
  return v;
}

/** A body for a request: mostly a mutation of a plausible one, sometimes raw garbage. */
export function mutateBody(rng: Rng, plausible: unknown, declared: string | undefined): FuzzBody {
  const json = (v: unknown, kind: string): FuzzBody => ({ kind, contentType: 'application/json', bytes: Buffer.from(JSON.stringify(v) ?? 'null') });
  const obj = plausible && typeof plausible === 'object' && !Array.isArray(plausible) ? (plausible as Record<string, unknown>) : {};
  const keys = Object.keys(obj);
  const roll = rng.int(0, 99);
  if (roll < 12) return declared === 'application/x-www-form-urlencoded' ? form(obj, 'valid-form') : json(plausible, 'valid');
  if (roll < 22) return { kind: 'malformed-json', contentType: 'application/json', bytes: Buffer.from(rng.pick(['{"a":', '[', 'nul', '{"a":1,}', '{a:1}', '"\\u0000', '{"a":"\\ud800"}', '\u0000', '{"__proto__":{"x":1}}', '1e999', '{"a":1}{"b":2}', ''])) };
  if (roll < 34 && keys.length) return json({ ...obj, [rng.pick(keys)]: wrongType(obj[rng.pick(keys)], rng) }, 'wrong-type');
  if (roll < 40) return json(rng.pick([[], 'string', 42, null, true]), 'wrong-root');
  if (roll < 46 && keys.length) {
    const copy = { ...obj };
    delete copy[rng.pick(keys)];
    return json(copy, 'missing-field');
  }
  if (roll < 52) return json({ ...obj, extra_field: rng.pick(ODD_STRINGS), __proto__x: 1, constructor: { prototype: 1 } }, 'extra-fields');
  if (roll < 58 && keys.length) return json({ ...obj, [rng.pick(keys)]: rng.pick(ODD_STRINGS) }, 'odd-string');
  if (roll < 62) return json({ ...obj, [keys.length ? rng.pick(keys) : 'x']: 'n'.repeat(1024 * 1024) }, 'one-megabyte');
  if (roll < 63 && rng.chance(0.4)) return { kind: 'ten-megabytes', contentType: 'application/json', bytes: Buffer.alloc(10 * 1024 * 1024, 0x20) };
  if (roll < 68) return json({ ...obj, [keys.length ? rng.pick(keys) : 'x']: 'a\u0000b' }, 'nul');
  if (roll < 73) {
    const text = JSON.stringify({ ...obj, x: 'SENTINEL' }).replace('SENTINEL', '');
    const i = text.lastIndexOf('""') + 1;
    return { kind: 'invalid-utf8', contentType: 'application/json', bytes: Buffer.concat([Buffer.from(text.slice(0, i)), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(text.slice(i))]) };
  }
  if (roll < 78) return json({ ...obj, [keys.length ? rng.pick(keys) : 'x']: nested(rng.pick([40, 200, 3_000])) }, 'deep');
  if (roll < 80) return { kind: 'deep-raw', contentType: 'application/json', bytes: Buffer.from('['.repeat(100_000)) };
  if (roll < 88) return { kind: 'wrong-content-type', contentType: rng.pick(CONTENT_TYPES), bytes: rng.chance(0.5) ? Buffer.from(JSON.stringify(plausible ?? {})) : Buffer.from('a=1&b=%ff&c') };
  if (roll < 93) return form({ ...obj, [keys.length ? rng.pick(keys) : 'x']: rng.pick(ODD_STRINGS) }, 'odd-form');
  return { kind: 'no-body' };
}

function form(obj: Record<string, unknown>, kind: string): FuzzBody {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(obj)) params.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  return { kind, contentType: 'application/x-www-form-urlencoded', bytes: Buffer.from(params.toString()) };
}

/** Headers a careless or hostile client sends. */
export function garbageHeaders(rng: Rng): Record<string, string> {
  const choices: Array<Record<string, string>> = [
    { authorization: 'Bearer' },
    { authorization: 'Basic YWRtaW46YWRtaW4=' },
    { authorization: `Bearer ${'k'.repeat(8_000)}` },
    { authorization: 'Bearer ak-\u00e9\u00e9' },
    { 'content-encoding': 'gzip' },
    { 'content-encoding': 'br' },
    { 'content-encoding': 'x-unknown' },
    { 'x-request-id': 'x'.repeat(500) },
    { 'x-request-id': '../../../' },
    { 'idempotency-key': 'i'.repeat(300) },
    { 'idempotency-key': '' },
    { accept: '*/*;q=abc' },
    { 'x-forwarded-proto': 'https' },
    { 'x-reporter-token': 'r'.repeat(2_000) },
    { cookie: 'a=b; '.repeat(500) },
    { 'content-type': 'application/json; charset=utf-32' },
  ];
  return rng.pick(choices);
}
