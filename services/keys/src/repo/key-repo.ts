import type { Account, ApiKey, KeysDb } from './prisma-types';
import { DISABLED } from '../domain/account-rules';
import { CHANNEL_FAMILIES } from '../domain/channel';

export interface NewKey {
  accountId: number;
  name: string;
  keyHash: string;
  keyPrefix: string;
  channel: string;
  group: string;
  allowedKinds: string[];
  quota: string | null;
  expiresAt: Date | null;
  comments: string;
  rpmLimit: number | null;
  concurrencyLimit: number | null;
}

export interface KeyFilter {
  accountId: number;
  channel?: string;
  status?: string;
}

export type KeyChanges = Partial<Pick<NewKey, 'name' | 'group' | 'quota' | 'expiresAt' | 'comments' | 'rpmLimit' | 'concurrencyLimit'>> & { status?: string };

function channelWhere(channel: string | undefined) {
  if (!channel) return {};
  if (channel === 'platform') return { channel };
  if ((CHANNEL_FAMILIES as readonly string[]).includes(channel)) return { channel: { startsWith: `${channel}:` } };
  return { channel };
}

/** API keys in PostgreSQL; deleted keys (deleted_at set) are invisible to every read. */
export class KeyRepo {
  constructor(private readonly db: KeysDb) {}

  findByHash(keyHash: string): Promise<(ApiKey & { account: Account }) | null> {
    return this.db.apiKey.findFirst({ where: { keyHash, deletedAt: null }, include: { account: true } });
  }

  findById(id: number): Promise<ApiKey | null> {
    return this.db.apiKey.findFirst({ where: { id, deletedAt: null } });
  }

  async list(filter: KeyFilter, skip: number, take: number): Promise<{ items: ApiKey[]; total: number }> {
    const where = { accountId: filter.accountId, deletedAt: null, ...channelWhere(filter.channel), ...(filter.status && { status: filter.status }) };
    const [items, total] = await this.db.$transaction([this.db.apiKey.findMany({ where, orderBy: { id: 'asc' }, skip, take }), this.db.apiKey.count({ where })]);
    return { items, total };
  }

  create(data: NewKey): Promise<ApiKey> {
    return this.db.apiKey.create({ data });
  }

  update(id: number, changes: KeyChanges): Promise<ApiKey> {
    return this.db.apiKey.update({ where: { id }, data: changes });
  }

  /**
   * `run` with the key's row locked (`write` applies `changes` in the same transaction): concurrent
   * updates of one key, on any replica, take their turn, so what `run` does beside the write (the
   * quota at billing) happens in the same order as the writes.
   */
  updateLocked(id: number, changes: KeyChanges, run: (current: ApiKey, write: () => Promise<ApiKey>) => Promise<ApiKey>): Promise<ApiKey> {
    return this.db.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT id FROM api_keys WHERE id = ${id} FOR UPDATE`;
        const current = await tx.apiKey.findUniqueOrThrow({ where: { id } });
        return run(current, () => tx.apiKey.update({ where: { id }, data: changes }));
      },
      { timeout: 30_000, maxWait: 10_000 },
    );
  }

  softDelete(id: number): Promise<ApiKey> {
    return this.db.apiKey.update({ where: { id }, data: { deletedAt: new Date(), status: DISABLED } });
  }
}
