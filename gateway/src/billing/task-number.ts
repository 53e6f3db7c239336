import { randomBytes } from 'node:crypto';

const pad = (n: number) => String(n).padStart(2, '0');

/** `T` + UTC `YYYYMMDDhhmmss` + 10 hex digits (the tasks service's format): sortable, unguessable, a valid NATS subject token. */
export function newTaskNumber(now = new Date()): string {
  const stamp = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  return `T${stamp}${randomBytes(5).toString('hex')}`;
}
