/**
 * One side of `bench/ab.ts`: starts the embedded system of the checkout at argv[2] (its own
 * bench/system.ts, so an older checkout works too), makes a bench account, prints one JSON line
 * (URL, key, pids, service addresses) and runs until its stdin closes.
 */
import { join } from 'node:path';

interface CheckoutBench {
  startBenchSystem(): Promise<{ http: string; system: { services: Record<string, { address: string }> }; stop(): Promise<void> }>;
}

async function main(): Promise<void> {
  const checkout = process.argv[2];
  if (!checkout) throw new Error('usage: ab-serve.ts <checkout directory>');
  const { startBenchSystem } = require(join(checkout, 'bench', 'system')) as CheckoutBench;
  const { createBenchAccount } = require(join(checkout, 'bench', 'account')) as { createBenchAccount(b: unknown): Promise<{ ok: boolean; apiKey?: string; reason?: string }> };
  const { findPostmaster } = require(join(checkout, 'bench', 'cpu')) as { findPostmaster(): number | undefined };
  const b = await startBenchSystem();
  const account = await createBenchAccount(b);
  if (!account.ok) throw new Error(account.reason);
  process.stdout.write(`${JSON.stringify({ http: b.http, apiKey: account.apiKey, pid: process.pid, postmaster: findPostmaster() })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void b.stop().finally(() => process.exit(0)));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
