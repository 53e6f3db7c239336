import { useQuery } from '@tanstack/react-query';
import { call, type ApiKey, type UsageRow } from '../api';
import { byKind, lastDays, StackedBars } from '../ui/charts';
import { ErrorNote, Loading, Stat } from '../ui/kit';

const month = () => new Date().toISOString().slice(0, 7);

export function OverviewPage() {
  const days = lastDays(30);
  const usage = useQuery({ queryKey: ['usage', 'overview'], queryFn: () => call<{ rows: UsageRow[]; total: string }>(`/v1/billing/usage?from=${days[0]}`) });
  const bill = useQuery({ queryKey: ['bill', month()], queryFn: () => call<{ total: string }>(`/v1/billing/bills/${month()}`) });
  const keys = useQuery({ queryKey: ['keys', 'all'], queryFn: () => call<{ data: { items: ApiKey[] } }>('/apikeys/list', { form: { page_size: 100 } }) });
  const stats = useQuery({ queryKey: ['task-stats', 30], queryFn: () => call<{ error_rate: number | null; failed: number; completed: number }>('/v1/account/task-stats?days=30') });
  const errorRate = stats.data ? (stats.data.error_rate === null ? 'no finished tasks' : `${(stats.data.error_rate * 100).toFixed(1)} %`) : stats.error ? 'unavailable' : '…';

  const today = days[days.length - 1];
  const rows = usage.data?.rows ?? [];
  const executionsToday = rows.filter((r) => r.day.slice(0, 10) === today).reduce((s, r) => s + r.count, 0);
  const items = keys.data?.data.items ?? [];
  const live = items.filter((k) => k.status === '启用');
  const remaining = live.some((k) => k.remaining_quota === null) ? 'unlimited' : `¥${live.reduce((s, k) => s + (k.remaining_quota ?? 0), 0).toFixed(2)}`;

  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <ErrorNote error={usage.error ?? bill.error ?? keys.error} />
      <div className="stats">
        <Stat label="Remaining quota" value={keys.isPending ? '…' : items.length === 0 ? 'no keys yet' : remaining} />
        <Stat label="Spend this month" value={bill.data ? `¥${bill.data.total}` : '…'} />
        <Stat label="Executions today" value={usage.isPending ? '…' : executionsToday} />
        <Stat label="Error rate (30 days)" value={errorRate} />
      </div>
      {usage.isPending ? <Loading /> : <StackedBars testId="executions-chart" title="Executions per day by kind, last 30 days" labels={days} series={byKind(rows, days)} />}
      {!usage.isPending && rows.length === 0 && <p className="empty">No executions in the last 30 days: create a key and try the Playground.</p>}
    </section>
  );
}
