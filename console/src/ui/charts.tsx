/** Small SVG charts (no chart library needed for bars and sparklines; they follow the theme's colours). */
const PALETTE = ['var(--c1)', 'var(--c2)', 'var(--c3)', 'var(--c4)', 'var(--c5)'];

export interface Series {
  label: string;
  values: number[];
}

/** Stacked bars, one per x label; a table of the same numbers for screen readers. */
export function StackedBars({ title, labels, series, testId }: { title: string; labels: string[]; series: Series[]; testId?: string }) {
  const totals = labels.map((_, i) => series.reduce((s, se) => s + (se.values[i] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const w = 1100;
  const h = 200;
  const bw = w / Math.max(1, labels.length);
  return (
    <figure className="chart" data-testid={testId} data-total={totals.reduce((a, b) => a + b, 0)}>
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${w} ${h + 20}`} role="img" aria-label={`${title}: ${totals.reduce((a, b) => a + b, 0)} in all`}>
        {labels.map((label, i) => {
          let y = h;
          return (
            <g key={label}>
              {series.map((se, k) => {
                const v = se.values[i] ?? 0;
                const bh = (v / max) * (h - 10);
                y -= bh;
                return v > 0 ? (
                  <rect key={se.label} x={i * bw + 1} y={y} width={Math.max(1, bw - 2)} height={bh} fill={PALETTE[k % PALETTE.length]}>
                    <title>{`${label} ${se.label}: ${v}`}</title>
                  </rect>
                ) : null;
              })}
              {(labels.length - 1 - i) % 7 === 0 && (
                <text x={i === labels.length - 1 ? w : i * bw + bw / 2} y={h + 15} fontSize="12" textAnchor={i === labels.length - 1 ? 'end' : 'middle'} fill="currentColor">
                  {label.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <ul className="legend">
        {series.map((se, k) => (
          <li key={se.label}>
            <span className="swatch" style={{ background: PALETTE[k % PALETTE.length] }} aria-hidden="true" /> {se.label}: {se.values.reduce((a, b) => a + b, 0)}
          </li>
        ))}
      </ul>
    </figure>
  );
}

export function Sparkline({ values, label }: { values: number[]; label: string }) {
  const max = Math.max(1, ...values);
  const w = 100;
  const h = 24;
  const step = w / Math.max(1, values.length - 1);
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${(h - (v / max) * (h - 2) - 1).toFixed(1)}`).join(' ');
  return (
    <svg className="spark" width={w} height={h} viewBox={`0 0 ${w} ${h}`} role="img" aria-label={label}>
      <polyline points={points} fill="none" stroke="var(--c1)" strokeWidth="1.5" />
    </svg>
  );
}

/** The last `n` UTC days as YYYY-MM-DD, oldest first. */
export function lastDays(n: number, now = new Date()): string[] {
  const out: string[] = [];
  for (let i = n - 1; i >= 0; i--) out.push(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - i)).toISOString().slice(0, 10));
  return out;
}

/** Usage rows (day, kind, count) → one series per kind over the given days. */
export function byKind(rows: Array<{ day: string; kind: string; count: number }>, days: string[], pick: (r: { count: number; amount?: string }) => number = (r) => r.count): Series[] {
  const kinds = [...new Set(rows.map((r) => r.kind))].sort();
  return kinds.map((kind) => ({ label: kind, values: days.map((d) => rows.filter((r) => r.kind === kind && r.day.slice(0, 10) === d).reduce((s, r) => s + pick(r), 0)) }));
}
