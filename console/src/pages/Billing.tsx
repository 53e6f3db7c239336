import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { call, type ApiKey, type UsageRow } from '../api';
import { byKind, lastDays, StackedBars } from '../ui/charts';
import { Empty, ErrorNote, Field, Loading } from '../ui/kit';

interface Bill {
  month: string;
  total: string;
  frozen: boolean;
  generated_at: string;
  lines: Array<{ kind: string; app_id: string; api_key_id: number; count: number; amount: string }>;
}

function months(n: number): string[] {
  const now = new Date();
  return Array.from({ length: n }, (_, i) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1)).toISOString().slice(0, 7));
}

export function BillingPage() {
  const [month, setMonth] = useState(months(1)[0]);
  const [keyId, setKeyId] = useState('');
  const days = lastDays(30);
  const bill = useQuery({ queryKey: ['bill', month], queryFn: () => call<Bill>(`/v1/billing/bills/${month}`) });
  const keys = useQuery({ queryKey: ['keys', 'all'], queryFn: () => call<{ data: { items: ApiKey[] } }>('/apikeys/list', { form: { page_size: 100 } }) });
  const usage = useQuery({ queryKey: ['usage', 'billing', keyId], queryFn: () => call<{ rows: UsageRow[]; total: string }>(`/v1/billing/usage?from=${days[0]}${keyId ? `&api_key_id=${keyId}` : ''}`) });
  const keyName = (id: number) => keys.data?.data.items.find((k) => k.id === id)?.name ?? `key ${id}`;
  const byKey = new Map<number, number>();
  for (const l of bill.data?.lines ?? []) byKey.set(l.api_key_id, (byKey.get(l.api_key_id) ?? 0) + Number(l.amount));

  return (
    <section aria-labelledby="billing-title">
      <h1 id="billing-title">Billing</h1>
      <div className="filters">
        <Field label="Month">
          {(id) => (
            <select id={id} value={month} onChange={(e) => setMonth(e.target.value)}>
              {months(12).map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          )}
        </Field>
        <a className="button" href={`/v1/billing/bills/${month}?format=csv`} download>
          Download CSV
        </a>
      </div>
      <ErrorNote error={bill.error ?? usage.error} />
      {bill.isPending ? (
        <Loading />
      ) : bill.data ? (
        <>
          <p>
            Total for {bill.data.month}: <strong data-testid="bill-total">¥{bill.data.total}</strong> {bill.data.frozen ? '(final)' : '(so far this month)'}
          </p>
          {bill.data.lines.length === 0 ? (
            <Empty>Nothing billed in {bill.data.month}.</Empty>
          ) : (
            <table>
              <caption className="sr-only">Bill lines</caption>
              <thead>
                <tr>
                  <th scope="col">Kind</th>
                  <th scope="col">App</th>
                  <th scope="col">Key</th>
                  <th scope="col">Executions</th>
                  <th scope="col">Amount</th>
                </tr>
              </thead>
              <tbody>
                {bill.data.lines.map((l, i) => (
                  <tr key={i}>
                    <td>{l.kind}</td>
                    <td>{l.app_id}</td>
                    <td>{keyName(l.api_key_id)}</td>
                    <td>{l.count}</td>
                    <td>¥{l.amount}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {byKey.size > 0 && (
            <>
              <h2>Spend by key</h2>
              <ul className="bars">
                {[...byKey].map(([id, amount]) => (
                  <li key={id}>
                    <span>{keyName(id)}</span>
                    <meter min={0} max={Math.max(...byKey.values())} value={amount} aria-label={`${keyName(id)}: ¥${amount.toFixed(2)}`} /> ¥{amount.toFixed(2)}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      ) : null}
      <h2>Usage, last 30 days</h2>
      <Field label="Key">
        {(id) => (
          <select id={id} value={keyId} onChange={(e) => setKeyId(e.target.value)}>
            <option value="">all keys</option>
            {(keys.data?.data.items ?? []).map((k) => (
              <option key={k.id} value={k.id}>
                {k.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      {usage.data && (
        <>
          <StackedBars title="Executions per day by kind" labels={days} series={byKind(usage.data.rows, days)} />
          <StackedBars title="Spend per day by kind (¥)" labels={days} series={byKind(usage.data.rows, days, (r) => Number(r.amount))} />
        </>
      )}
    </section>
  );
}
