import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nextMigrationName, writeMigration } from '../src/db/new-migration';
import { readMigrations } from '../src/db/migration-files';

describe('new migration folders', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-newmig-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names folders <utc timestamp>_<slug>, always after the last one', () => {
    expect(nextMigrationName(dir, 'Add key labels!', new Date('2026-11-21T10:11:12Z'))).toBe('20261121101112_add_key_labels');
    writeMigration(dir, '20991231235959_future', 'SELECT 1;');
    expect(nextMigrationName(dir, 'next', new Date('2026-11-21T10:11:12Z'))).toBe('20991231235960_next');
    expect(() => nextMigrationName(dir, '!!!')).toThrow(/not a usable migration name/);
  });

  it('writes migration.sql and the Prisma lock file, read back with a sha256 checksum', () => {
    writeMigration(dir, '20260101000000_init', 'CREATE TABLE t (id int);');
    expect(fs.readFileSync(path.join(dir, 'migration_lock.toml'), 'utf8')).toContain('provider = "postgresql"');
    expect(readMigrations(dir)).toEqual([
      { name: '20260101000000_init', sql: 'CREATE TABLE t (id int);\n', checksum: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
  });
});
