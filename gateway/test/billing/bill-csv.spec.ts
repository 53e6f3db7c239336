import { billCsv } from '../../src/billing/bill-csv';
import { newTaskNumber } from '../../src/billing/task-number';

describe('billCsv', () => {
  it('writes one row per line and a total row, quoting what a spreadsheet would run as a formula', () => {
    const csv = billCsv({
      accountId: 3,
      month: '2026-10',
      frozen: true,
      total: '3.5',
      generatedAt: '',
      lines: [
        { kind: 'agent', appId: 'plain', apiKeyId: 9, count: 2, amount: '2' },
        { kind: 'chatbot', appId: '=cmd(),"x"', apiKeyId: 9, count: 1, amount: '1.5' },
      ],
    });
    expect(csv.split('\r\n')).toEqual([
      'month,account_id,kind,app_id,api_key_id,count,amount',
      '2026-10,3,agent,plain,9,2,2',
      '2026-10,3,chatbot,"=cmd(),""x""",9,1,1.5',
      '2026-10,3,total,,,3,3.5',
      '',
    ]);
  });
});

describe('newTaskNumber', () => {
  it('is T + UTC timestamp + 10 hex digits, unique per call', () => {
    const n = newTaskNumber(new Date('2026-11-21T08:09:10Z'));
    expect(n).toMatch(/^T20261121080910[0-9a-f]{10}$/);
    expect(newTaskNumber()).not.toBe(newTaskNumber());
  });
});
