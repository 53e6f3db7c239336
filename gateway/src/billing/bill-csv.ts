import type { Bill } from '@tollgate/protos/billing';

const cell = (v: string | number) => {
  const s = String(v);
  return /[",\r\n]/.test(s) || /^[=+\-@]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** A bill as CSV: one row per kind/app/key line, then a total row. Cells that a spreadsheet would run as formulas are quoted. */
export function billCsv(bill: Bill): string {
  const rows: Array<Array<string | number>> = [['month', 'account_id', 'kind', 'app_id', 'api_key_id', 'count', 'amount']];
  for (const l of bill.lines) rows.push([bill.month, bill.accountId, l.kind, l.appId, l.apiKeyId, l.count, l.amount]);
  rows.push([bill.month, bill.accountId, 'total', '', '', bill.lines.reduce((n, l) => n + l.count, 0), bill.total]);
  return rows.map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}
