import type { Account, KeysDb } from './prisma-types';
import { Prisma } from '../generated/prisma/client';
import { BOOTSTRAP_ROLE, DISABLED } from '../domain/account-rules';

export interface AccountPage {
  items: Account[];
  total: number;
}

export interface NewAccount {
  name: string;
  email: string | null;
  level: string;
  permissions: Record<string, unknown>;
  tokenHash: string;
  tokenPrefix: string;
  validUntil: Date | null;
  passwordHash?: string | null;
}

export type AccountChanges = Partial<Pick<Account, 'name' | 'email' | 'level' | 'status' | 'validUntil'>> & { permissions?: Record<string, unknown> };

/** Accounts in PostgreSQL; deleted accounts (deleted_at set) are invisible to every read. */
export class AccountRepo {
  constructor(private readonly db: KeysDb) {}

  findById(id: number): Promise<Account | null> {
    return this.db.account.findFirst({ where: { id, deletedAt: null } });
  }

  findByTokenHash(tokenHash: string): Promise<Account | null> {
    return this.db.account.findFirst({ where: { tokenHash, deletedAt: null } });
  }

  findByEmail(email: string): Promise<Account | null> {
    return this.db.account.findFirst({ where: { email, deletedAt: null } });
  }

  setPasswordHash(id: number, passwordHash: string | null): Promise<Account> {
    return this.db.account.update({ where: { id }, data: { passwordHash } });
  }

  setToken(id: number, tokenHash: string, tokenPrefix: string): Promise<Account> {
    return this.db.account.update({ where: { id }, data: { tokenHash, tokenPrefix } });
  }

  async list(filter: { status?: string; level?: string }, skip: number, take: number): Promise<AccountPage> {
    const where = { deletedAt: null, ...(filter.status && { status: filter.status }), ...(filter.level && { level: filter.level }) };
    const [items, total] = await this.db.$transaction([this.db.account.findMany({ where, orderBy: { id: 'asc' }, skip, take }), this.db.account.count({ where })]);
    return { items, total };
  }

  create(data: NewAccount): Promise<Account> {
    return this.db.account.create({ data: { ...data, permissions: data.permissions as Prisma.InputJsonValue } });
  }

  update(id: number, changes: AccountChanges): Promise<Account> {
    const { permissions, ...rest } = changes;
    return this.db.account.update({ where: { id }, data: { ...rest, ...(permissions && { permissions: permissions as Prisma.InputJsonValue }) } });
  }

  /** Marks the account deleted and disables all its keys in one transaction; returns the keys it disabled. */
  async softDelete(id: number): Promise<{ account: Account; keyIds: number[] }> {
    return this.db.$transaction(async (tx) => {
      const keys = await tx.apiKey.findMany({ where: { accountId: id, deletedAt: null }, select: { id: true } });
      await tx.apiKey.updateMany({ where: { accountId: id, deletedAt: null }, data: { status: DISABLED } });
      const account = await tx.account.update({ where: { id }, data: { deletedAt: new Date(), status: DISABLED, email: null } });
      return { account, keyIds: keys.map((k) => k.id) };
    });
  }

  /** Sets last_active_at unless it was set less than a minute ago (one cheap conditional UPDATE). */
  async touch(id: number): Promise<void> {
    await this.db.$executeRaw`UPDATE accounts SET last_active_at = now() WHERE id = ${id} AND (last_active_at IS NULL OR last_active_at < now() - interval '1 minute')`;
  }

  findBootstrap(): Promise<Account | null> {
    return this.db.account.findUnique({ where: { systemRole: BOOTSTRAP_ROLE } });
  }

  /**
   * Creates the bootstrap admin if absent (safe under concurrent starts: the unique system_role
   * decides); with `overwrite`, an existing one gets the given token. Returns whether a row was inserted.
   */
  async ensureBootstrap(data: NewAccount, overwrite: boolean): Promise<{ inserted: boolean }> {
    const perms = JSON.stringify(data.permissions);
    const rows = overwrite
      ? await this.db.$queryRaw<Array<{ inserted: boolean }>>`
          INSERT INTO accounts (name, level, status, permissions, token_hash, token_prefix, updated_at, system_role)
          VALUES (${data.name}, ${data.level}, '启用', ${perms}::jsonb, ${data.tokenHash}, ${data.tokenPrefix}, now(), ${BOOTSTRAP_ROLE})
          ON CONFLICT (system_role) DO UPDATE SET token_hash = EXCLUDED.token_hash, token_prefix = EXCLUDED.token_prefix, updated_at = now()
          RETURNING (xmax = 0) AS inserted`
      : await this.db.$queryRaw<Array<{ inserted: boolean }>>`
          INSERT INTO accounts (name, level, status, permissions, token_hash, token_prefix, updated_at, system_role)
          VALUES (${data.name}, ${data.level}, '启用', ${perms}::jsonb, ${data.tokenHash}, ${data.tokenPrefix}, now(), ${BOOTSTRAP_ROLE})
          ON CONFLICT (system_role) DO NOTHING
          RETURNING true AS inserted`;
    return { inserted: rows[0]?.inserted === true };
  }
}
