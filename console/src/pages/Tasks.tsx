import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call, KINDS, STATUS, type Task } from '../api';
import { workingKey } from '../session';
import { KeyPicker } from '../ui/KeyPicker';
import { Empty, ErrorNote, Field, Loading, Pager, StatusBadge, when } from '../ui/kit';

const PAGE_SIZE = 20;
const FINAL = new Set<string>([STATUS.completed, STATUS.failed, STATUS.cancelled]);
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export function TasksPage() {
  const [key, setKey] = useState(workingKey.get());
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [kind, setKind] = useState('');
  const [app, setApp] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const list = useQuery({
    queryKey: ['tasks', key, page, status, kind, app, from, to],
    enabled: key !== '',
    refetchInterval: 5_000,
    queryFn: () =>
      call<{ items: Task[]; total: number }>('/v1/task-query/list', {
        headers: bearer(key),
        json: { page, page_size: PAGE_SIZE, ...(status && { status }), ...(kind && { kind }), ...(app && { app_id: app }), ...(from && { created_from: new Date(from).toISOString() }), ...(to && { created_to: new Date(to).toISOString() }) },
      }),
  });
  const reset = (f: (v: string) => void) => (e: { target: { value: string } }) => {
    f(e.target.value);
    setPage(1);
  };
  return (
    <section aria-labelledby="tasks-title">
      <h1 id="tasks-title">Tasks</h1>
      <KeyPicker onChange={setKey} />
      <div className="filters">
        <Field label="Status">
          {(id) => (
            <select id={id} value={status} onChange={reset(setStatus)}>
              <option value="">any</option>
              {Object.entries(STATUS).map(([label, v]) => (
                <option key={v} value={v}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Kind">
          {(id) => (
            <select id={id} value={kind} onChange={reset(setKind)}>
              <option value="">any</option>
              {KINDS.map((k) => (
                <option key={k}>{k}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="App">{(id) => <input id={id} value={app} placeholder="app_id" onChange={reset(setApp)} />}</Field>
        <Field label="Created from">{(id) => <input id={id} type="date" value={from} onChange={reset(setFrom)} />}</Field>
        <Field label="Created before">{(id) => <input id={id} type="date" value={to} onChange={reset(setTo)} />}</Field>
      </div>
      <ErrorNote error={list.error} />
      {key === '' ? (
        <Empty>Give one of your API keys above to see your tasks.</Empty>
      ) : list.isPending ? (
        <Loading />
      ) : list.data && list.data.items.length === 0 && page > 1 ? (
        <>
          <Empty>No more tasks: the count was an estimate.</Empty>
          <Pager page={page} pageSize={PAGE_SIZE} total={list.data.total} shown={0} onPage={setPage} />
        </>
      ) : !list.data || list.data.items.length === 0 ? (
        <Empty>No tasks{status || kind || app || from || to ? ' match these filters' : ' yet: run something in the Playground'}.</Empty>
      ) : (
        <>
          <table>
            <caption className="sr-only">Your tasks, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">Status</th>
                <th scope="col">Kind</th>
                <th scope="col">App</th>
                <th scope="col">Mode</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((t) => (
                <tr key={t.task_number}>
                  <td>
                    <Link to={`/tasks/${encodeURIComponent(t.task_number)}`}>{t.task_number}</Link>
                  </td>
                  <td>
                    <StatusBadge value={t.status} />
                  </td>
                  <td>{t.kind}</td>
                  <td>{t.app_id}</td>
                  <td>{t.mode}</td>
                  <td>{when(t.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} pageSize={PAGE_SIZE} total={list.data.total} shown={list.data.items.length} onPage={setPage} />
        </>
      )}
    </section>
  );
}

/** Follows the task's server-sent events (fetch, since the route takes the key in Authorization). */
function useTaskEvents(taskNumber: string, key: string, enabled: boolean, onEvent: () => void) {
  const [events, setEvents] = useState<string[]>([]);
  useEffect(() => {
    if (!enabled || !key) return;
    const abort = new AbortController();
    void (async () => {
      try {
        const res = await fetch(`/v1/task-query/${encodeURIComponent(taskNumber)}/events`, { headers: { ...bearer(key), accept: 'text/event-stream' }, signal: abort.signal });
        if (!res.ok || !res.body) return;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let at: number;
          while ((at = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, at);
            buffer = buffer.slice(at + 2);
            const lines = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim());
            if (lines.length) {
              setEvents((e) => [...e, lines.join('\n')]);
              onEvent();
            }
          }
        }
      } catch {
        /* aborted or the stream ended */
      }
    })();
    return () => abort.abort();
  }, [taskNumber, key, enabled, onEvent]);
  return events;
}

/** One status event: its time and status, then the rest of the event as JSON. */
function EventLine({ raw }: { raw: string }) {
  try {
    const { status, at, task_number: _n, ...rest } = JSON.parse(raw) as Record<string, unknown>;
    return (
      <>
        {when(String(at ?? ''))} <StatusBadge value={String(status)} /> <code>{JSON.stringify(rest)}</code>
      </>
    );
  } catch {
    return <code>{raw}</code>;
  }
}

export function TaskDetailPage() {
  const { taskNumber = '' } = useParams();
  const key = workingKey.get();
  const qc = useQueryClient();
  const task = useQuery({ queryKey: ['task', taskNumber, key], enabled: key !== '', queryFn: () => call<Task>(`/v1/task-query/${encodeURIComponent(taskNumber)}`, { headers: bearer(key) }) });
  const running = !!task.data && !FINAL.has(task.data.status);
  const [refetch] = useState(() => () => void qc.invalidateQueries({ queryKey: ['task', taskNumber] }));
  const events = useTaskEvents(taskNumber, key, running, refetch);
  const cancel = useMutation({
    mutationFn: () => call<Task>('/v1/task-status/update', { headers: bearer(key), json: { task_number: taskNumber, status: STATUS.cancelled } }),
    onSuccess: () => refetch(),
  });
  const t = task.data;
  return (
    <section aria-labelledby="task-title">
      <p>
        <Link to="/tasks">← All tasks</Link>
      </p>
      <h1 id="task-title">Task {taskNumber}</h1>
      {key === '' && <Empty>Give one of your API keys under Tasks first.</Empty>}
      <ErrorNote error={task.error ?? cancel.error} />
      {task.isPending && key !== '' && <Loading />}
      {t && (
        <>
          <dl className="facts">
            <dt>Status</dt>
            <dd aria-live="polite">
              <StatusBadge value={t.status} testId="task-status" />
            </dd>
            <dt>Kind</dt>
            <dd>{t.kind}</dd>
            <dt>App</dt>
            <dd>{t.app_id}</dd>
            <dt>Mode</dt>
            <dd>{t.mode}</dd>
            <dt>Created</dt>
            <dd>{when(t.created_at)}</dd>
            <dt>Finished</dt>
            <dd>{when(t.finished_at)}</dd>
            <dt>Comments</dt>
            <dd>{t.comments || '—'}</dd>
          </dl>
          {running && (
            <button type="button" className="danger" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
              Cancel task
            </button>
          )}
          <h2>Progress</h2>
          <pre className="json">{JSON.stringify(t.task_progress, null, 2) ?? 'null'}</pre>
          <h2>Result</h2>
          <pre className="json">{JSON.stringify(t.task_result, null, 2) ?? 'null'}</pre>
          <h2>Live events</h2>
          {events.length === 0 ? <Empty>{running ? 'Waiting for events…' : 'The task has finished.'}</Empty> : <ol className="events">{events.map((e, i) => <li key={i}><EventLine raw={e} /></li>)}</ol>}
        </>
      )}
    </section>
  );
}
