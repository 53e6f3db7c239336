import { BillingLink, createGrpcClient } from '@tollgate/kit';
import { BillingClient } from '@tollgate/protos/billing';
import { admitRequest, startBilling, taskNo, type BillingHarness } from './harness';

// The kit's BillingLink against the real billing service: a settlement that finds billing away
// (a restart) is sent again until billing is back, instead of waiting for the admission's lease.
describe('BillingLink', () => {
  let b: BillingHarness | null;
  beforeAll(async () => {
    b = await startBilling();
  });
  afterAll(async () => {
    await b?.stop();
  });

  it('sends a settlement again while billing restarts, and it lands once', async () => {
    if (!b) return;
    const address = b.handle.address;
    const client = createGrpcClient(BillingClient, address);
    const link = new BillingLink(client, { settleLingerMs: 0 });
    try {
      const taskNumber = taskNo('restart');
      await link.admit(admitRequest({ apiKeyId: 301, taskNumber }));
      const restart = b.restart(600);
      await new Promise((r) => setTimeout(r, 100));
      const settled = link.settle({ taskNumber, outcome: 'charge' });
      await restart;
      await expect(settled).resolves.toMatchObject({ found: true, state: 'charged', alreadySettled: false });
      const rows = await b.sql<{ type: string }>("SELECT type FROM ledger_entries WHERE task_number = $1 AND type = 'charge'", [taskNumber]);
      expect(rows).toHaveLength(1);
    } finally {
      client.close();
    }
  });

  it('sends a settlement asked for `now` without waiting for its linger or a ride', async () => {
    if (!b) return;
    const client = createGrpcClient(BillingClient, b.handle.address);
    const link = new BillingLink(client, { settleLingerMs: 600_000 });
    try {
      const taskNumber = taskNo('now');
      await link.admit(admitRequest({ apiKeyId: 302, taskNumber }));
      await expect(link.settle({ taskNumber, outcome: 'refund' }, { now: true })).resolves.toMatchObject({ found: true, state: 'refunded' });
      const [admission] = await b.sql<{ state: string }>('SELECT state FROM admissions WHERE task_number = $1', [taskNumber]);
      expect(admission.state).toBe('refunded');
    } finally {
      client.close();
    }
  });
});
