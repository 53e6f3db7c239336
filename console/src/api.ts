/**
 * Every call the console makes goes to the gateway's documented public routes, authenticated by
 * the session cookie (sent by the browser) plus X-CSRF-Token on state-changing calls.
 */
let csrfToken = '';
export const setCsrfToken = (token: string) => {
  csrfToken = token;
};

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** The message a page shows: the server's own, and for a 429 when to try again. */
export function messageOf(status: number, body: unknown, retryAfter?: number): string {
  const b = body as { message?: string; detail?: unknown } | null;
  let text = typeof b?.message === 'string' ? b.message : typeof b?.detail === 'string' ? b.detail : Array.isArray(b?.detail) ? (b!.detail as Array<{ loc?: string[]; msg?: string }>).map((d) => `${(d.loc ?? []).slice(1).join('.')}: ${d.msg}`).join('; ') : `HTTP ${status}`;
  const errors = (b as { data?: { errors?: Array<{ loc: string[]; msg: string }> } } | null)?.data?.errors;
  if (errors?.length) text = errors.map((e) => `${e.loc.slice(1).join('.')}: ${e.msg}`).join('; ');
  if (status === 429 && !/try again/i.test(text)) text = `${text} — try again in ${retryAfter ?? 'a few'} s`;
  return text;
}

interface CallOptions {
  method?: string;
  json?: unknown;
  /** Form fields; undefined ones are left out, an empty string is sent (it clears a field on an update). */
  form?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
}

export async function call<T>(path: string, opts: CallOptions = {}): Promise<T> {
  const res = await raw(path, opts);
  const text = await res.text();
  const body = text ? safeJson(text) : null;
  if (!res.ok) {
    const retry = Number(res.headers.get('retry-after')) || undefined;
    if (res.status === 401 && path !== '/api/v1/session') window.dispatchEvent(new Event('tollgate:signed-out'));
    // The cookie's session is not the one this tab knows (signed in again in another tab): read it afresh.
    if (res.status === 403 && /csrf/i.test(messageOf(res.status, body))) window.dispatchEvent(new Event('tollgate:session-changed'));
    throw new ApiError(messageOf(res.status, body, retry), res.status, retry);
  }
  return body as T;
}

export function raw(path: string, opts: CallOptions = {}): Promise<Response> {
  const method = opts.method ?? (opts.json !== undefined || opts.form ? 'POST' : 'GET');
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  let body: BodyInit | undefined;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.form) {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.form)) if (v !== undefined) form.set(k, String(v));
    body = form;
  }
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['x-csrf-token'] = csrfToken;
  return fetch(path, { method, headers, body, credentials: 'same-origin' });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 300) };
  }
}

/** undefined for an empty value: a form field left out rather than sent empty. */
export const filled = (v: string | number | undefined): string | number | undefined => (v === '' ? undefined : v);

/** The docs-API envelope's data. */
export const data = <T>(p: Promise<{ data: T }>): Promise<T> => p.then((b) => b.data);

export interface User {
  id: number;
  name: string;
  email: string | null;
  level: string;
  status: string;
  permissions: { kinds: string[]; docs_read: boolean; docs_write: boolean; admin: boolean };
  valid_until: string | null;
  created_at: string;
  last_active_at: string | null;
  has_password: boolean;
}

export interface ApiKey {
  id: number;
  account_id: number;
  name: string;
  key: string;
  channel: string;
  group: string;
  quota: number | null;
  used_quota: number;
  remaining_quota: number | null;
  created_time: string;
  expired_time: string | null;
  status: string;
  comments: string;
  rpm_limit: number | null;
  concurrency_limit: number | null;
}

export interface Task {
  task_number: string;
  status: string;
  task_progress: unknown;
  task_result: unknown;
  comments: string;
  kind: string;
  app_id: string;
  mode: string;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface App {
  app_id: string;
  kind: string;
  name: string;
  owner_account_id: number | null;
  provider: string;
  model: string;
  system_prompt: string;
  public: boolean;
  settings: Record<string, unknown>;
}

export interface UsageRow {
  day: string;
  kind: string;
  count: number;
  amount: string;
}

export const STATUS = { waiting: '等待中', running: '执行中', completed: '已完成', failed: '已报错', cancelled: '已取消' } as const;
export const KEY_STATUS = { enabled: '启用', disabled: '禁用' } as const;
export const KINDS = ['agent', 'workflow', 'aiapp', 'chatbot'] as const;
