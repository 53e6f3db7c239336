import { useId, useState, type ReactNode } from 'react';

export function Field({ label, children, hint }: { label: string; hint?: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id)}
      {hint && <small className="hint">{hint}</small>}
    </div>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {error instanceof Error ? error.message : String(error)}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

export function Loading() {
  return (
    <p className="muted" aria-live="polite">
      Loading…
    </p>
  );
}

export function Stat({ label, value }: { label: string; value: ReactNode }) {
  return (
    <div className="stat">
      <div className="stat-label">{label}</div>
      <div className="stat-value" data-testid={`stat-${label.toLowerCase().replace(/\W+/g, '-')}`}>
        {value}
      </div>
    </div>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => setDone(true), () => setDone(false));
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

/**
 * Previous / next. Above 100 rows a list's total is PostgreSQL's estimate (docs/docs-api.md): a
 * full page always offers the next one, and the count says "about".
 */
export function Pager({ page, pageSize, total, shown, onPage }: { page: number; pageSize: number; total: number; shown: number; onPage: (p: number) => void }) {
  const estimated = total > 100;
  const last = Math.max(1, Math.ceil(total / pageSize), estimated && shown === pageSize ? page + 1 : page);
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {estimated ? 'about ' : ''}
        {last} ({estimated ? 'about ' : ''}
        {total} in all)
      </span>
      <button type="button" disabled={page >= last} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

export const day = (iso: string) => iso.slice(0, 10);
export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

const STATUS_LABELS: Record<string, string> = { 启用: 'enabled', 禁用: 'disabled', 等待中: 'waiting', 执行中: 'running', 已完成: 'completed', 已报错: 'failed', 已取消: 'cancelled' };

/** A wire status (启用, 已完成, …) shown in English; the wire value stays in data-status and the tooltip. */
export function StatusBadge({ value, testId }: { value: string; testId?: string }) {
  return (
    <span className={`badge s-${STATUS_LABELS[value] ?? 'other'}`} data-status={value} data-testid={testId} title={value}>
      {STATUS_LABELS[value] ?? value}
    </span>
  );
}
