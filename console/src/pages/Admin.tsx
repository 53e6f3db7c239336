import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call, data, KINDS, type App, type User } from '../api';
import { useSession } from '../session';
import { CopyButton, Empty, ErrorNote, Field, Loading, Pager, StatusBadge, when } from '../ui/kit';

function Users() {
  const qc = useQueryClient();
  const [page, setPage] = useState(1);
  const [form, setForm] = useState({ name: '', email: '', level: 'free', password: '', admin: false });
  const [shownToken, setShownToken] = useState<{ who: string; token: string } | null>(null);
  const list = useQuery({ queryKey: ['users', page], queryFn: () => data(call<{ data: { users: User[]; total: number } }>(`/api/v1/users?page=${page}&limit=20`)) });
  const refresh = () => qc.invalidateQueries({ queryKey: ['users'] });
  const create = useMutation({
    mutationFn: () => data(call<{ data: User & { token: string } }>('/api/v1/users', { json: { name: form.name, email: form.email, level: form.level, ...(form.password && { password: form.password }), permissions: { admin: form.admin } } })),
    onSuccess: (u) => {
      setShownToken({ who: u.email ?? u.name, token: u.token });
      setForm({ name: '', email: '', level: 'free', password: '', admin: false });
      void refresh();
    },
  });
  const update = useMutation({ mutationFn: ({ id, body }: { id: number; body: Record<string, unknown> }) => call(`/api/v1/users/${id}`, { method: 'PUT', json: body }), onSuccess: () => void refresh() });
  const reset = useMutation({
    mutationFn: (u: User) => data(call<{ data: User & { token: string } }>(`/api/v1/users/${u.id}/token`, { method: 'POST' })),
    onSuccess: (u) => setShownToken({ who: u.email ?? u.name, token: u.token }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <section aria-labelledby="users-title">
      <h2 id="users-title">Users</h2>
      <form className="card" onSubmit={submit} aria-label="Create a user">
        <div className="grid">
          <Field label="Name">{(id) => <input id={id} required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />}</Field>
          <Field label="User email">{(id) => <input id={id} type="email" required value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} />}</Field>
          <Field label="Level">
            {(id) => (
              <select id={id} value={form.level} onChange={(e) => setForm({ ...form, level: e.target.value })}>
                <option>free</option>
                <option>pro</option>
                <option>enterprise</option>
              </select>
            )}
          </Field>
          <Field label="Initial password" hint="Optional, 8+ characters; without one the user signs in with the user token">
            {(id) => <input id={id} type="password" autoComplete="new-password" minLength={8} value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} />}
          </Field>
          <label className="check">
            <input type="checkbox" checked={form.admin} onChange={(e) => setForm({ ...form, admin: e.target.checked })} /> Administrator
          </label>
        </div>
        <ErrorNote error={create.error} />
        <button type="submit" className="primary">
          Create user
        </button>
      </form>
      {shownToken && (
        <div className="card secret" role="status">
          User token of {shownToken.who} (shown once): <code data-testid="shown-user-token">{shownToken.token}</code> <CopyButton text={shownToken.token} />{' '}
          <button type="button" onClick={() => setShownToken(null)}>
            Done
          </button>
        </div>
      )}
      <ErrorNote error={list.error ?? update.error ?? reset.error} />
      {list.isPending ? (
        <Loading />
      ) : !list.data ? null : (
        <>
          <table>
            <caption className="sr-only">Users</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Level</th>
                <th scope="col">Status</th>
                <th scope="col">Permissions</th>
                <th scope="col">Last active</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.users.map((u) => (
                <tr key={u.id}>
                  <td>{u.name}</td>
                  <td>{u.email ?? '—'}</td>
                  <td>
                    <select aria-label={`Level of ${u.name}`} value={u.level} onChange={(e) => update.mutate({ id: u.id, body: { level: e.target.value } })}>
                      <option>free</option>
                      <option>pro</option>
                      <option>enterprise</option>
                    </select>
                  </td>
                  <td>
                    <StatusBadge value={u.status} />
                  </td>
                  <td>
                    {(['docs_read', 'docs_write', 'admin'] as const).map((p) => (
                      <label key={p} className="check">
                        <input type="checkbox" checked={u.permissions[p]} onChange={(e) => update.mutate({ id: u.id, body: { permissions: { [p]: e.target.checked } } })} /> {p}
                        <span className="sr-only"> for {u.name}</span>
                      </label>
                    ))}
                  </td>
                  <td>{when(u.last_active_at)}</td>
                  <td className="actions">
                    <button type="button" onClick={() => update.mutate({ id: u.id, body: { status: u.status === '启用' ? '禁用' : '启用' } })}>
                      {u.status === '启用' ? 'Disable' : 'Enable'}
                      <span className="sr-only"> {u.name}</span>
                    </button>
                    <button type="button" onClick={() => window.confirm(`Reset the user token of ${u.name}? The old one stops working at once.`) && reset.mutate(u)}>
                      Reset token<span className="sr-only"> of {u.name}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} pageSize={20} total={list.data.total} shown={list.data.users.length} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function Apps() {
  const qc = useQueryClient();
  const list = useQuery({ queryKey: ['apps', 'all'], queryFn: () => call<{ items: App[] }>('/v1/apps?page_size=100') });
  const blank = { app_id: '', kind: 'chatbot', name: '', model: '', system_prompt: '', public: true };
  const [form, setForm] = useState(blank);
  const [editing, setEditing] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: () =>
      editing
        ? call(`/v1/apps/${encodeURIComponent(editing)}`, { method: 'PATCH', json: { name: form.name, model: form.model, system_prompt: form.system_prompt, public: form.public } })
        : call('/v1/apps', { json: { app_id: form.app_id, kind: form.kind, name: form.name, ...(form.model && { model: form.model }), system_prompt: form.system_prompt, public: form.public } }),
    onSuccess: () => {
      setForm(blank);
      setEditing(null);
      void qc.invalidateQueries({ queryKey: ['apps'] });
    },
  });
  return (
    <section aria-labelledby="apps-title">
      <h2 id="apps-title">Apps</h2>
      <form
        className="card"
        aria-label={editing ? `Edit app ${editing}` : 'Create an app'}
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <div className="grid">
          <Field label="App id">{(id) => <input id={id} required disabled={!!editing} value={form.app_id} onChange={(e) => setForm({ ...form, app_id: e.target.value })} />}</Field>
          <Field label="Kind">
            {(id) => (
              <select id={id} disabled={!!editing} value={form.kind} onChange={(e) => setForm({ ...form, kind: e.target.value })}>
                {KINDS.map((k) => (
                  <option key={k}>{k}</option>
                ))}
              </select>
            )}
          </Field>
          <Field label="App name">{(id) => <input id={id} required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />}</Field>
          <Field label="Model" hint="echo apps: echo-1">{(id) => <input id={id} value={form.model} onChange={(e) => setForm({ ...form, model: e.target.value })} />}</Field>
          <Field label="System prompt">{(id) => <input id={id} value={form.system_prompt} onChange={(e) => setForm({ ...form, system_prompt: e.target.value })} />}</Field>
          <label className="check">
            <input type="checkbox" checked={form.public} onChange={(e) => setForm({ ...form, public: e.target.checked })} /> Public
          </label>
        </div>
        <ErrorNote error={save.error} />
        <button type="submit" className="primary">
          {editing ? 'Save app' : 'Create app'}
        </button>
        {editing && (
          <button type="button" onClick={() => { setEditing(null); setForm(blank); }}>
            Cancel
          </button>
        )}
      </form>
      {list.isPending ? (
        <Loading />
      ) : !list.data ? null : list.data.items.length === 0 ? (
        <Empty>No apps.</Empty>
      ) : (
        <table>
          <caption className="sr-only">Apps</caption>
          <thead>
            <tr>
              <th scope="col">App id</th>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Provider / model</th>
              <th scope="col">Public</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.items.map((a) => (
              <tr key={a.app_id}>
                <td>{a.app_id}</td>
                <td>{a.name}</td>
                <td>{a.kind}</td>
                <td>
                  {a.provider} / {a.model}
                </td>
                <td>{a.public ? 'yes' : 'no'}</td>
                <td>
                  <button type="button" onClick={() => { setEditing(a.app_id); setForm({ app_id: a.app_id, kind: a.kind, name: a.name, model: a.model, system_prompt: a.system_prompt, public: a.public }); }}>
                    Edit<span className="sr-only"> {a.app_id}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

interface Analytics {
  total_queries: number;
  zero_result_total: number;
  avg_latency_ms: number;
  p95_latency_ms: number;
  top_queries: Array<{ query: string; count: number }>;
  zero_result_queries: Array<{ query: string; count: number }>;
}

function SearchAnalytics() {
  const q = useQuery({ queryKey: ['search-analytics'], queryFn: () => data(call<{ data: Analytics }>('/api/v1/search/analytics')) });
  return (
    <section aria-labelledby="sa-title">
      <h2 id="sa-title">Search analytics</h2>
      <ErrorNote error={q.error} />
      {q.data && (
        <>
          <p>
            {q.data.total_queries} queries, {q.data.zero_result_total} without results; latency avg {q.data.avg_latency_ms.toFixed(1)} ms, p95 {q.data.p95_latency_ms.toFixed(1)} ms.
          </p>
          <div className="two">
            <div>
              <h3>Top queries</h3>
              {q.data.top_queries.length === 0 ? <Empty>None yet.</Empty> : <ol>{q.data.top_queries.map((t) => <li key={t.query}>{t.query} ({t.count})</li>)}</ol>}
            </div>
            <div>
              <h3>Queries without results</h3>
              {q.data.zero_result_queries.length === 0 ? <Empty>None.</Empty> : <ol>{q.data.zero_result_queries.map((t) => <li key={t.query}>{t.query} ({t.count})</li>)}</ol>}
            </div>
          </div>
        </>
      )}
    </section>
  );
}

function Health() {
  const q = useQuery({
    queryKey: ['readyz'],
    refetchInterval: 10_000,
    queryFn: async () => {
      const res = await fetch('/readyz');
      return (await res.json()) as { status: string; upstream: Record<string, boolean> };
    },
  });
  return (
    <section aria-labelledby="health-title">
      <h2 id="health-title">Service health</h2>
      <ErrorNote error={q.error} />
      {q.data && (
        <ul className="health">
          {Object.entries(q.data.upstream).map(([name, ok]) => (
            <li key={name} className={ok ? 'ok' : 'bad'}>
              {name}: {ok ? 'serving' : 'not serving'}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function AdminPage() {
  const { user } = useSession();
  if (!user?.permissions.admin) return <Empty>This page is for administrators.</Empty>;
  return (
    <section aria-labelledby="admin-title">
      <h1 id="admin-title">Administration</h1>
      <Users />
      <Apps />
      <SearchAnalytics />
      <Health />
    </section>
  );
}
