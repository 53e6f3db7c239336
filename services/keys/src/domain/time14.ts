import { AppError } from '@tollgate/kit';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `YYYYMMDDhhmmss` in UTC. */
export function toTime14(d: Date): string {
  return `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
}

/** Parses `YYYYMMDDhhmmss` (UTC); null when it is not 14 digits of a real calendar time. */
export function parseTime14(s: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(s);
  if (!m) return null;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number);
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, se));
  return toTime14(date) === s && y >= 1970 ? date : null;
}

export function time14OrThrow(s: string, field: string): Date {
  const date = parseTime14(s);
  if (!date) throw AppError.field(['body', field], `${field} must be a real date and time written as 14 digits YYYYMMDDhhmmss (UTC)`, 'datetime_invalid');
  return date;
}

/** ISO 8601 date or date-time; null when unparseable. */
export function parseIso(s: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(s)) return null;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? null : d;
}
