import { AppError, TASK_KINDS } from '@tollgate/kit';

export const PASSTHROUGH = 'passthrough';
export const CHANNEL_FAMILIES = ['platform', 'provider', 'custom'] as const;

export interface ParsedChannel {
  channel: string;
  allowedKinds: string[];
}

const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function invalid(msg: string): AppError {
  return AppError.field(['body', 'channel'], msg, 'channel_invalid');
}

/**
 * `platform` (default): the four task kinds. `provider:<name>`: only the provider passthrough.
 * `custom:<kind>[,<kind>...]`: exactly the listed task kinds (stored sorted, without repeats).
 */
export function parseChannel(raw: string): ParsedChannel {
  const value = raw.trim();
  if (value === '' || value === 'platform') return { channel: 'platform', allowedKinds: [...TASK_KINDS] };
  if (value.startsWith('provider:')) {
    const name = value.slice('provider:'.length);
    if (!PROVIDER_NAME.test(name)) throw invalid('provider channel must be provider:<name> (letters, digits, . _ -; up to 64)');
    return { channel: `provider:${name}`, allowedKinds: [PASSTHROUGH] };
  }
  if (value === 'custom' || value.startsWith('custom:')) {
    const kinds = [...new Set(value.slice('custom:'.length).split(',').map((k) => k.trim()).filter(Boolean))];
    if (kinds.length === 0) throw invalid(`custom channel must list its kinds: custom:<kind>[,<kind>...] with kinds from ${TASK_KINDS.join(', ')}`);
    const unknown = kinds.filter((k) => !(TASK_KINDS as readonly string[]).includes(k));
    if (unknown.length > 0) throw invalid(`unknown kind(s) in custom channel: ${unknown.join(', ')}; allowed: ${TASK_KINDS.join(', ')}`);
    const sorted = TASK_KINDS.filter((k) => kinds.includes(k));
    return { channel: `custom:${sorted.join(',')}`, allowedKinds: sorted };
  }
  throw invalid('channel must be platform, provider:<name> or custom:<kind>[,<kind>...]');
}
