import { randomBytes } from 'node:crypto';

const pad = (n: number) => String(n).padStart(2, '0');

/** `T` + UTC `YYYYMMDDhhmmss` + 10 hex digits: sortable by time, unguessable, safe as a NATS subject token. */
export function newTaskNumber(now = new Date()): string {
  const stamp = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  return `T${stamp}${randomBytes(5).toString('hex')}`;
}

export const TASK_NUMBER_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
