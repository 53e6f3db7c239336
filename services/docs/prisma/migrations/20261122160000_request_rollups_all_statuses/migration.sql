-- One row per (period, account, group) for all status classes together (status_class 0) carries
-- the count and the latency histogram; the per-status-class rows keep only their counts.
WITH cells AS (
  SELECT period_kind, account_id, period_start, "group", u.i, sum(u.v)::int AS n
  FROM request_rollups, unnest(latency) WITH ORDINALITY AS u(v, i)
  WHERE status_class <> 0
  GROUP BY period_kind, account_id, period_start, "group", u.i
), hist AS (
  SELECT period_kind, account_id, period_start, "group", array_agg(n ORDER BY i) AS latency
  FROM cells GROUP BY period_kind, account_id, period_start, "group"
), totals AS (
  SELECT period_kind, account_id, period_start, "group", sum(count)::int AS count
  FROM request_rollups WHERE status_class <> 0
  GROUP BY period_kind, account_id, period_start, "group"
)
INSERT INTO request_rollups (period_kind, account_id, period_start, "group", status_class, count, latency)
SELECT t.period_kind, t.account_id, t.period_start, t."group", 0, t.count, coalesce(h.latency, '{}')
FROM totals t LEFT JOIN hist h USING (period_kind, account_id, period_start, "group")
ON CONFLICT (period_kind, account_id, period_start, "group", status_class) DO NOTHING;

UPDATE request_rollups SET latency = '{}' WHERE status_class <> 0 AND cardinality(latency) > 0;
