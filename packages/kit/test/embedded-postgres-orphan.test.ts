import { spawn } from 'node:child_process';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../src/db/embedded-postgres';
import { findFreePort } from '../src/db/free-port';

const FIXTURE = path.join(__dirname, 'fixtures', 'hold-embedded-postgres.ts');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const postmasterPid = (dataDir: string) => Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

/** A process that starts the embedded PostgreSQL of `dataDir` and runs until killed; resolves with its pid once PostgreSQL accepts connections. */
function holder(dataDir: string): Promise<{ pid: number; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      const m = /port (\d+)/.exec(c.toString());
      if (m) resolve({ pid: child.pid!, port: Number(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`holder exited (${code}): ${err}`)));
  });
}

async function query(pg: EmbeddedPostgres, sql: string) {
  const client = new Client({ connectionString: pg.adminConnectionString });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL after its Tollgate process was killed', () => {
  let dir: string;
  const started: EmbeddedPostgres[] = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-orphan-'));
    fs.chmodSync(dir, 0o755); // as root, PostgreSQL runs as the postgres user
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((pg) => pg.stop()));
    // A server a failed test left running.
    const lock = path.join(dir, 'pg', 'postmaster.pid');
    if (fs.existsSync(lock) && alive(postmasterPid(path.join(dir, 'pg')))) process.kill(postmasterPid(path.join(dir, 'pg')), 'SIGQUIT');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stops the server the killed process left running and starts again on the same data', async () => {
    const dataDir = path.join(dir, 'pg');
    const first = await holder(dataDir);
    const orphan = postmasterPid(dataDir);
    const client = new Client({ connectionString: `postgresql://postgres:${fs.readFileSync(`${dataDir}-password`, 'utf8').trim()}@127.0.0.1:${first.port}/postgres` });
    await client.connect();
    await client.query('CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)');
    await client.end();

    process.kill(first.pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(orphan)).toBe(true);

    const pg = await startEmbeddedPostgres({ dataDir });
    started.push(pg);
    expect(alive(orphan)).toBe(false);
    expect(await query(pg, 'SELECT n FROM kept')).toEqual([{ n: 42 }]);
  }, 120_000);

  it('refuses a data folder whose server a live process runs, naming that process', async () => {
    const dataDir = path.join(dir, 'pg');
    const pg = await startEmbeddedPostgres({ dataDir });
    started.push(pg);
    await expect(startEmbeddedPostgres({ dataDir })).rejects.toThrow(new RegExp(`in use by process ${process.pid}`));
    expect(await query(pg, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
  }, 120_000);

  it('starts on another free port when the one it picked is taken before PostgreSQL binds it', async () => {
    const taker = net.createServer();
    await new Promise<void>((r) => taker.listen(0, '127.0.0.1', r));
    const takenPort = (taker.address() as net.AddressInfo).port;
    try {
      const picked: number[] = [];
      const pickPort = async () => {
        const port = picked.length === 0 ? takenPort : await findFreePort();
        picked.push(port);
        return port;
      };
      const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), pickPort });
      started.push(pg);
      expect(picked[0]).toBe(takenPort);
      expect(pg.port).toBe(picked[1]);
      expect(await query(pg, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      taker.close();
    }
  }, 120_000);
});
