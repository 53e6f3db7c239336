import { useRef, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call, filled, type ApiKey, type UsageRow } from '../api';
import { workingKey } from '../session';
import { lastDays, Sparkline } from '../ui/charts';
import { CopyButton, Empty, ErrorNote, Field, Loading, Pager, StatusBadge } from '../ui/kit';

const PAGE_SIZE = 10;
type KeyForm = Record<string, string>;

/** datetime-local (UTC) → the spec's YYYYMMDDhhmmss, and back. */
const toTime14 = (v: string) => (v ? v.replace(/[-T:]/g, '').padEnd(14, '0').slice(0, 14) : '');
const fromTime14 = (v: string | null) => (v ? `${v.slice(0, 4)}-${v.slice(4, 6)}-${v.slice(6, 8)}T${v.slice(8, 10)}:${v.slice(10, 12)}` : '');

function KeyUsage({ id }: { id: number }) {
  const days = lastDays(14);
  const q = useQuery({ queryKey: ['usage', 'key', id], queryFn: () => call<{ rows: UsageRow[] }>(`/v1/billing/usage?from=${days[0]}&api_key_id=${id}`) });
  const values = days.map((d) => (q.data?.rows ?? []).filter((r) => r.day.slice(0, 10) === d).reduce((s, r) => s + r.count, 0));
  return <Sparkline values={values} label={`Executions per day, last 14 days: ${values.reduce((a, b) => a + b, 0)}`} />;
}

function KeyFields({ value, onChange, creating }: { value: KeyForm; onChange: (v: KeyForm) => void; creating: boolean }) {
  const set = (k: string) => (e: { target: { value: string } }) => onChange({ ...value, [k]: e.target.value });
  return (
    <div className="grid">
      <Field label="Name">{(id) => <input id={id} required maxLength={100} value={value.name ?? ''} onChange={set('name')} />}</Field>
      {creating && (
        <Field label="Channel" hint="platform, provider:<name> or custom:<kind>,…">
          {(id) => <input id={id} value={value.channel ?? ''} placeholder="platform" onChange={set('channel')} />}
        </Field>
      )}
      <Field label="Group">{(id) => <input id={id} value={value.group ?? ''} placeholder="default" onChange={set('group')} />}</Field>
      <Field label="Quota (¥)" hint="Empty = unlimited">{(id) => <input id={id} inputMode="decimal" value={value.quota ?? ''} onChange={set('quota')} />}</Field>
      <Field label="Expires (UTC)" hint="Empty = never">{(id) => <input id={id} type="datetime-local" value={value.expires ?? ''} onChange={set('expires')} />}</Field>
      <Field label="Requests per minute" hint="0 = the level's default">{(id) => <input id={id} type="number" min={0} value={value.rpm_limit ?? ''} onChange={set('rpm_limit')} />}</Field>
      <Field label="Concurrent executions" hint="0 = the level's default">{(id) => <input id={id} type="number" min={0} value={value.concurrency_limit ?? ''} onChange={set('concurrency_limit')} />}</Field>
      {!creating && (
        <Field label="Status">
          {(id) => (
            <select id={id} value={value.status ?? '启用'} onChange={set('status')}>
              <option value="启用">enabled</option>
              <option value="禁用">disabled</option>
            </select>
          )}
        </Field>
      )}
      <Field label="Comments">{(id) => <input id={id} maxLength={1000} value={value.comments ?? ''} onChange={set('comments')} />}</Field>
    </div>
  );
}

export function KeysPage() {
  const qc = useQueryClient();
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [channel, setChannel] = useState('');
  const [form, setForm] = useState<KeyForm>({});
  const [created, setCreated] = useState<ApiKey | null>(null);
  /** The key being edited: its form, and the form as it was opened (an unchanged expiry is not sent back). */
  const [editing, setEditing] = useState<{ id: number; form: KeyForm; opened: KeyForm } | null>(null);
  const creating = useRef(false);
  const openEditor = (k: ApiKey) => {
    const opened: KeyForm = { name: k.name, group: k.group, quota: k.quota === null ? '' : String(k.quota), status: k.status, expires: fromTime14(k.expired_time), rpm_limit: String(k.rpm_limit ?? 0), concurrency_limit: String(k.concurrency_limit ?? 0), comments: k.comments };
    setEditing({ id: k.id, form: opened, opened });
  };
  const [current, setCurrent] = useState(workingKey.get());

  const list = useQuery({
    queryKey: ['keys', page, status, channel],
    queryFn: () => call<{ data: { items: ApiKey[]; total: number } }>('/apikeys/list', { form: { page, page_size: PAGE_SIZE, status: filled(status), channel: filled(channel) } }),
  });
  const refresh = () => qc.invalidateQueries({ queryKey: ['keys'] });

  const create = useMutation({
    mutationFn: (f: KeyForm) =>
      call<{ data: ApiKey }>('/apikeys/create', {
        form: { name: f.name, channel: filled(f.channel), group: filled(f.group), quota: filled(f.quota), expired_time: filled(toTime14(f.expires ?? '')), rpm_limit: filled(f.rpm_limit), concurrency_limit: filled(f.concurrency_limit), comments: filled(f.comments) },
      }),
    onSuccess: (r) => {
      setCreated(r.data);
      setForm({});
      void refresh();
    },
  });
  const update = useMutation({
    // An empty quota, expiry or comments is sent empty: on an update that clears it (docs/keys.md).
    mutationFn: ({ id, form: f, opened }: { id: number; form: KeyForm; opened: KeyForm }) =>
      call('/apikeys/update', {
        form: {
          api_key_id: id,
          name: f.name,
          group: f.group,
          quota: f.quota ?? '',
          status: f.status,
          // The form keeps minutes only: an expiry left as it was is not sent back without its seconds.
          expired_time: f.expires === opened.expires ? undefined : toTime14(f.expires ?? ''),
          rpm_limit: f.rpm_limit,
          concurrency_limit: f.concurrency_limit,
          comments: f.comments ?? '',
        },
      }),
    onSuccess: () => {
      setEditing(null);
      void refresh();
    },
  });
  const remove = useMutation({ mutationFn: (id: number) => call('/apikeys/delete', { form: { api_key_id: id } }), onSuccess: () => void refresh() });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    // A double click submits twice before the button is disabled: one key, one secret shown.
    if (creating.current) return;
    creating.current = true;
    create.mutate(form, { onSettled: () => void (creating.current = false) });
  };
  const items = list.data?.data.items ?? [];

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <details className="card" open={items.length === 0 && !list.isPending}>
        <summary>Create a key</summary>
        <form onSubmit={submit} aria-label="Create a key">
          <KeyFields value={form} onChange={setForm} creating />
          <ErrorNote error={create.error} />
          <button type="submit" className="primary" disabled={create.isPending}>
            Create key
          </button>
        </form>
      </details>
      {created && (
        <div className="card secret" role="status">
          <p>
            Key <strong>{created.name}</strong> created. Copy its secret now: it is not shown again.
          </p>
          <code data-testid="new-key-secret">{created.key}</code> <CopyButton text={created.key} />{' '}
          <button
            type="button"
            onClick={() => {
              workingKey.set(created.key);
              setCurrent(created.key);
            }}
          >
            Use for Tasks and Playground
          </button>{' '}
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
      <p className="muted">{current ? `Tasks and Playground use the key ${current.slice(0, 11)}… in this tab.` : 'Tasks and Playground need one of your keys: create one, or paste a secret there.'}</p>
      <div className="filters">
        <Field label="Status">
          {(id) => (
            <select id={id} value={status} onChange={(e) => { setStatus(e.target.value); setPage(1); }}>
              <option value="">any</option>
              <option value="启用">enabled</option>
              <option value="禁用">disabled</option>
            </select>
          )}
        </Field>
        <Field label="Channel">
          {(id) => (
            <select id={id} value={channel} onChange={(e) => { setChannel(e.target.value); setPage(1); }}>
              <option value="">any</option>
              <option value="platform">platform</option>
              <option value="provider">provider</option>
              <option value="custom">custom</option>
            </select>
          )}
        </Field>
      </div>
      <ErrorNote error={list.error ?? update.error ?? remove.error} />
      {list.isPending ? (
        <Loading />
      ) : items.length === 0 ? (
        <Empty>No keys{status || channel ? ' match these filters' : ' yet'}.</Empty>
      ) : (
        <table>
          <caption className="sr-only">Your API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Channel</th>
              <th scope="col">Status</th>
              <th scope="col">Used / quota</th>
              <th scope="col">Expires</th>
              <th scope="col">Usage (14 days)</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {items.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.key}</code>
                </td>
                <td>{k.channel}</td>
                <td>
                  <StatusBadge value={k.status} />
                </td>
                <td>
                  ¥{k.used_quota} / {k.quota === null ? 'unlimited' : `¥${k.quota}`}
                </td>
                <td>{k.expired_time ? fromTime14(k.expired_time).replace('T', ' ') : 'never'}</td>
                <td>
                  <KeyUsage id={k.id} />
                </td>
                <td className="actions">
                  <button type="button" onClick={() => openEditor(k)}>
                    Edit<span className="sr-only"> {k.name}</span>
                  </button>
                  <button
                    type="button"
                    className="danger"
                    onClick={() => {
                      if (window.confirm(`Delete the key "${k.name}"? It stops working at once.`)) remove.mutate(k.id);
                    }}
                  >
                    Delete<span className="sr-only"> {k.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list.data && <Pager page={page} pageSize={PAGE_SIZE} total={list.data.data.total} shown={list.data.data.items.length} onPage={setPage} />}
      {editing && (
        <form
          className="card"
          aria-label="Edit key"
          onSubmit={(e) => {
            e.preventDefault();
            update.mutate(editing);
          }}
        >
          <h2>Edit key</h2>
          <KeyFields value={editing.form} onChange={(f) => setEditing({ ...editing, form: f })} creating={false} />
          <button type="submit" className="primary">
            Save
          </button>{' '}
          <button type="button" onClick={() => setEditing(null)}>
            Cancel
          </button>
        </form>
      )}
    </section>
  );
}
