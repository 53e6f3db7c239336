import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Markdown from 'react-markdown';
import { call, data } from '../api';
import { useSession } from '../session';
import { Highlighted } from '../ui/Highlighted';
import { Empty, ErrorNote, Field, Loading, Pager, when } from '../ui/kit';

interface Doc {
  id: number;
  slug: string;
  title: string;
  content?: string;
  category: string;
  tags: string[];
  status: string;
  version: number;
  updated_at: string;
  deleted_at: string | null;
}
interface Hit {
  id: number;
  title: string;
  title_highlighted: string;
  snippet: string;
}
interface Revision {
  version: number;
  title: string;
  created_at: string;
  editor_id: number;
}

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

export function DocumentsPage() {
  const { user } = useSession();
  const canWrite = !!user && (user.permissions.docs_write || user.permissions.admin);
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const [trash, setTrash] = useState(false);
  const term = useDebounced(q.trim(), 200);
  const qc = useQueryClient();
  const list = useQuery({ queryKey: ['docs', page, trash], queryFn: () => data(call<{ data: { documents: Doc[]; total: number } }>(`/api/v1/documents?page=${page}&limit=20${trash ? '&deleted=true' : ''}`)) });
  const hits = useQuery({ queryKey: ['search', term], enabled: term.length > 0, queryFn: () => data(call<{ data: { hits: Hit[]; total: number } }>(`/api/v1/search?q=${encodeURIComponent(term)}&limit=10`)) });
  const suggest = useQuery({ queryKey: ['suggest', term], enabled: term.length >= 2, queryFn: () => data(call<{ data: { suggestions: Array<{ text: string; type: string }> } }>(`/api/v1/search/suggest?q=${encodeURIComponent(term)}`)) });
  const restore = useMutation({ mutationFn: (id: number) => call(`/api/v1/documents/${id}/restore`, { method: 'POST' }), onSuccess: () => qc.invalidateQueries({ queryKey: ['docs'] }) });
  const purge = useMutation({ mutationFn: (id: number) => call(`/api/v1/documents/${id}?permanent=true`, { method: 'DELETE' }), onSuccess: () => qc.invalidateQueries({ queryKey: ['docs'] }) });

  return (
    <section aria-labelledby="docs-title">
      <h1 id="docs-title">Documents</h1>
      <div className="filters">
        <Field label="Search documents">
          {(id) => <input id={id} type="search" value={q} list="doc-suggestions" autoComplete="off" onChange={(e) => setQ(e.target.value)} />}
        </Field>
        <datalist id="doc-suggestions">
          {(suggest.data?.suggestions ?? []).map((s) => (
            <option key={`${s.type}:${s.text}`} value={s.text} />
          ))}
        </datalist>
        {canWrite && (
          <Link className="button primary" to="/documents/new">
            New document
          </Link>
        )}
        {canWrite && (
          <label className="check">
            <input type="checkbox" checked={trash} onChange={(e) => { setTrash(e.target.checked); setPage(1); }} /> Show trash
          </label>
        )}
      </div>
      <ErrorNote error={list.error ?? hits.error ?? restore.error ?? purge.error} />
      {term ? (
        hits.isPending ? (
          <Loading />
        ) : (hits.data?.hits ?? []).length === 0 ? (
          <Empty>No document matches “{term}”.</Empty>
        ) : (
          <ul className="hits" aria-label="Search results">
            {hits.data!.hits.map((h) => (
              <li key={h.id}>
                <Link to={`/documents/${h.id}`}>
                  <Highlighted text={h.title_highlighted || h.title} />
                </Link>
                <p>
                  <Highlighted text={h.snippet} />
                </p>
              </li>
            ))}
          </ul>
        )
      ) : list.isPending ? (
        <Loading />
      ) : !list.data ? null : list.data.documents.length === 0 && page > 1 ? (
        <>
          <Empty>No more documents: the count was an estimate.</Empty>
          <Pager page={page} pageSize={20} total={list.data.total} shown={0} onPage={setPage} />
        </>
      ) : list.data.documents.length === 0 ? (
        <Empty>{trash ? 'The trash is empty.' : 'No documents yet.'}</Empty>
      ) : (
        <>
          <table>
            <caption className="sr-only">{trash ? 'Documents in the trash' : 'Documents'}</caption>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Category</th>
                <th scope="col">Status</th>
                <th scope="col">Version</th>
                <th scope="col">Updated</th>
                {trash && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {list.data.documents.map((d) => (
                <tr key={d.id}>
                  <td>{trash ? d.title : <Link to={`/documents/${d.id}`}>{d.title}</Link>}</td>
                  <td>{d.category || '—'}</td>
                  <td>{d.status}</td>
                  <td>{d.version}</td>
                  <td>{when(d.updated_at)}</td>
                  {trash && (
                    <td className="actions">
                      <button type="button" onClick={() => restore.mutate(d.id)}>
                        Restore<span className="sr-only"> {d.title}</span>
                      </button>
                      <button type="button" className="danger" onClick={() => window.confirm(`Delete “${d.title}” for good?`) && purge.mutate(d.id)}>
                        Delete for good<span className="sr-only"> {d.title}</span>
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} pageSize={20} total={list.data.total} shown={list.data.documents.length} onPage={setPage} />
        </>
      )}
    </section>
  );
}

export function DocumentPage() {
  const { id = 'new' } = useParams();
  const isNew = id === 'new';
  const navigate = useNavigate();
  const qc = useQueryClient();
  const doc = useQuery({ queryKey: ['doc', id], enabled: !isNew, queryFn: () => data(call<{ data: Doc }>(`/api/v1/documents/${id}`)) });
  const revisions = useQuery({ queryKey: ['revisions', id], enabled: !isNew, queryFn: () => data(call<{ data: { revisions: Revision[] } }>(`/api/v1/documents/${id}/revisions`)) });
  const [form, setForm] = useState({ title: '', content: '', category: '', tags: '' });
  useEffect(() => {
    if (doc.data) setForm({ title: doc.data.title, content: doc.data.content ?? '', category: doc.data.category, tags: doc.data.tags.join(', ') });
  }, [doc.data]);
  const body = () => ({ title: form.title, content: form.content, category: form.category, tags: form.tags.split(',').map((t) => t.trim()).filter(Boolean) });
  const save = useMutation({
    mutationFn: () => (isNew ? data(call<{ data: Doc }>('/api/v1/documents', { json: body() })) : data(call<{ data: Doc }>(`/api/v1/documents/${id}`, { method: 'PUT', json: { ...body(), version: doc.data?.version } }))),
    onSuccess: (d) => {
      void qc.invalidateQueries({ queryKey: ['docs'] });
      void qc.invalidateQueries({ queryKey: ['doc', String(d.id)] });
      void qc.invalidateQueries({ queryKey: ['revisions', String(d.id)] });
      if (isNew) navigate(`/documents/${d.id}`);
    },
  });
  const restoreRevision = useMutation({
    mutationFn: (version: number) => call(`/api/v1/documents/${id}/revisions/${version}/restore`, { method: 'POST' }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['doc', id] });
      void qc.invalidateQueries({ queryKey: ['revisions', id] });
    },
  });
  const trash = useMutation({ mutationFn: () => call(`/api/v1/documents/${id}`, { method: 'DELETE' }), onSuccess: () => { void qc.invalidateQueries({ queryKey: ['docs'] }); navigate('/documents'); } });
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });

  return (
    <section aria-labelledby="doc-title">
      <p>
        <Link to="/documents">← All documents</Link>
      </p>
      <h1 id="doc-title">{isNew ? 'New document' : doc.data?.title ?? 'Document'}</h1>
      <ErrorNote error={doc.error ?? save.error ?? restoreRevision.error ?? trash.error} />
      {!isNew && doc.isPending ? (
        <Loading />
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
          aria-label="Edit document"
        >
          <div className="grid">
            <Field label="Title">{(fid) => <input id={fid} required maxLength={200} value={form.title} onChange={set('title')} />}</Field>
            <Field label="Category">{(fid) => <input id={fid} value={form.category} onChange={set('category')} />}</Field>
            <Field label="Tags" hint="Comma-separated">{(fid) => <input id={fid} value={form.tags} onChange={set('tags')} />}</Field>
          </div>
          <div className="editor">
            <Field label="Content (markdown)">{(fid) => <textarea id={fid} rows={18} value={form.content} onChange={set('content')} />}</Field>
            <div className="preview" aria-label="Preview" role="region">
              <Markdown>{form.content || '*Nothing to preview yet.*'}</Markdown>
            </div>
          </div>
          <button type="submit" className="primary" disabled={save.isPending}>
            {isNew ? 'Create' : 'Save'}
          </button>{' '}
          {!isNew && (
            <button type="button" className="danger" onClick={() => window.confirm('Move this document to the trash?') && trash.mutate()}>
              Move to trash
            </button>
          )}
          {save.isSuccess && <span role="status"> Saved.</span>}
        </form>
      )}
      {!isNew && (
        <>
          <h2>Revisions</h2>
          {(revisions.data?.revisions ?? []).length === 0 ? (
            <Empty>No earlier revisions.</Empty>
          ) : (
            <ul className="revisions">
              {revisions.data!.revisions.map((r) => (
                <li key={r.version}>
                  v{r.version} — {r.title} — {when(r.created_at)}{' '}
                  {r.version !== doc.data?.version && (
                    <button type="button" onClick={() => restoreRevision.mutate(r.version)}>
                      Restore v{r.version}
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
