import { pgAdapter } from '../src/db/prisma-adapter';
import { acquireDevPostgres } from '../src/db/dev-postgres';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/db/ensure-database';
import { applyMigrations } from '../src/db/migrate';
import { dropTestDatabase, migratedTestDatabase, migrationsDirOf, releaseTestPostgres, useTestDatabase } from '../src/testing/postgres';
import { PrismaClient } from '../../../services/keys/src/generated/prisma/client';
import { PrismaClient as BillingClient } from '../../../services/billing/src/generated/prisma/client';

afterAll(() => releaseTestPostgres());

describe('useTestDatabase', () => {
  const db = useTestDatabase('billing');

  it('gives each test file a migrated database of its own', async () => {
    expect(db.available).toBe(true);
    const prisma = new BillingClient({ adapter: pgAdapter(db.url) });
    try {
      await prisma.price.create({ data: { kind: 'chat', basis: 'token', unitPrice: '0.000123' } });
      const stored = await prisma.price.findUnique({ where: { kind_basis: { kind: 'chat', basis: 'token' } } });
      expect(stored?.unitPrice.toString()).toBe('0.000123');
      expect(new URL(db.url).pathname).toMatch(/^\/t_billing_[a-z0-9]+_[0-9a-f]{10}$/);
    } finally {
      await prisma.$disconnect();
    }
  });
});

describe('generated Prisma client (cjs) on a migrated database', () => {
  it('creates and reads rows through pgAdapter', async () => {
    const url = await migratedTestDatabase('keys');
    if (!url) throw new Error('PostgreSQL is required for this test');
    const prisma = new PrismaClient({ adapter: pgAdapter(url, { max: 2 }) });
    try {
      const account = await prisma.account.create({
        data: { name: 'Ada', permissions: { admin: true }, tokenHash: 'h1', tokenPrefix: 'tg_', apiKeys: { create: { name: 'k', keyHash: 'kh', keyPrefix: 'sk', allowedKinds: ['chat'], quota: '12.5' } } },
        include: { apiKeys: true },
      });
      expect(account).toMatchObject({ level: 'free', status: '启用', permissions: { admin: true } });
      expect(account.apiKeys[0].quota?.toString()).toBe('12.5');
      expect(account.apiKeys[0]).toMatchObject({ channel: 'platform', group: 'default', allowedKinds: ['chat'], comments: '' });
    } finally {
      await prisma.$disconnect();
      await dropTestDatabase(url);
    }
  });
});

describe('dev PostgreSQL discovery', () => {
  it('falls back to an embedded PostgreSQL when nothing answers, and ensureDatabase tolerates races', async () => {
    const server = await acquireDevPostgres({ env: {}, localUrl: 'postgresql://postgres@127.0.0.1:1/postgres' });
    try {
      expect(server.source).toBe('embedded');
      const created = await Promise.all([1, 2, 3].map(() => ensureDatabase(server.adminConnectionString, 'raced')));
      expect(created.filter(Boolean).length).toBeLessThanOrEqual(1);
      const url = withDatabase(server.adminConnectionString, 'raced');
      expect((await applyMigrations({ connectionString: url, migrationsDir: migrationsDirOf('tasks') })).applied.length).toBeGreaterThan(0);
      await dropDatabase(server.adminConnectionString, 'raced');
    } finally {
      await server.release();
    }
  });
});
