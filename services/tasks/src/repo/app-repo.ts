import { AppError, ErrorCode, SecretBox, SecretBoxError } from '@tollgate/kit';
import type { AppRecord } from '../domain/types';
import { toApp } from './mappers';
import { Prisma, type TasksDb } from './prisma-types';

export type NewApp = Omit<AppRecord, 'createdAt' | 'updatedAt'>;
export type AppChanges = Partial<Omit<NewApp, 'id' | 'kind' | 'ownerAccountId'>>;

const json = (v: Record<string, unknown>) => v as Prisma.InputJsonValue;

/** Apps in PostgreSQL. The upstream `api_key` is sealed (AES-256-GCM) in the row and opened on read. */
export class AppRepo {
  constructor(
    private readonly db: TasksDb,
    private readonly box: SecretBox,
  ) {}

  private open(row: Parameters<typeof toApp>[0]): AppRecord {
    try {
      return toApp({ ...row, apiKey: this.box.open(row.apiKey) });
    } catch (err) {
      if (!(err instanceof SecretBoxError)) throw err;
      throw new AppError(ErrorCode.FailedPrecondition, `the upstream api_key of app ${row.id} cannot be opened with this service's secret key (${err.message}); see docs/security.md`, {}, { cause: err });
    }
  }

  private seal<T extends { apiKey?: string }>(data: T): T {
    return data.apiKey === undefined ? data : { ...data, apiKey: this.box.seal(data.apiKey) };
  }

  /** Seals every api_key still stored in plain text or with a previous key; returns how many were sealed and the ids that could not be opened. */
  async resealApiKeys(): Promise<{ sealed: number; unreadable: string[] }> {
    const rows = await this.db.app.findMany({ where: { apiKey: { not: '' } }, select: { id: true, apiKey: true } });
    let sealed = 0;
    const unreadable: string[] = [];
    for (const row of rows) {
      if (!this.box.needsResealing(row.apiKey)) continue;
      let plain: string;
      try {
        plain = this.box.open(row.apiKey);
      } catch {
        unreadable.push(row.id);
        continue;
      }
      // Only the value read is replaced: a concurrent change (or another replica's resealing) wins.
      const n = await this.db.app.updateMany({ where: { id: row.id, apiKey: row.apiKey }, data: { apiKey: this.box.seal(plain) } });
      sealed += n.count;
    }
    return { sealed, unreadable };
  }

  async find(id: string): Promise<AppRecord | null> {
    const row = await this.db.app.findUnique({ where: { id } });
    return row && this.open(row);
  }

  async findByReporterTokenHash(hash: string): Promise<AppRecord | null> {
    const row = await this.db.app.findUnique({ where: { reporterTokenHash: hash } });
    return row && this.open(row);
  }

  /** Creates the app; null when the id is taken. */
  async create(app: NewApp): Promise<AppRecord | null> {
    try {
      return this.open(await this.db.app.create({ data: { ...this.seal(app), settings: json(app.settings) } }));
    } catch (err) {
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') return null;
      throw err;
    }
  }

  /** Inserts the apps that do not exist yet; existing ones are left as they are. */
  async createMissing(apps: NewApp[]): Promise<number> {
    const res = await this.db.app.createMany({ data: apps.map((a) => ({ ...this.seal(a), settings: json(a.settings) })), skipDuplicates: true });
    return res.count;
  }

  /** Sets the settings of an app whose settings are still `{}`; 1 when it did. */
  async fillEmptySettings(id: string, settings: Record<string, unknown>): Promise<number> {
    return this.db.$executeRaw`UPDATE apps SET settings = ${JSON.stringify(settings)}::jsonb, updated_at = now() WHERE id = ${id} AND settings = '{}'::jsonb`;
  }

  async update(id: string, changes: AppChanges): Promise<AppRecord> {
    const { settings, ...rest } = changes;
    return this.open(await this.db.app.update({ where: { id }, data: { ...this.seal(rest), ...(settings && { settings: json(settings) }) } }));
  }

  async delete(id: string): Promise<void> {
    await this.db.app.delete({ where: { id } });
  }

  /** Apps the account may see (its own and the public ones; all of them for an admin). */
  async list(filter: { accountId: number; isAdmin: boolean; kind?: string }, skip: number, take: number): Promise<{ items: AppRecord[]; total: number }> {
    const where: Prisma.AppWhereInput = {
      ...(filter.kind && { kind: filter.kind }),
      ...(!filter.isAdmin && { OR: [{ public: true }, { ownerAccountId: filter.accountId }] }),
    };
    const [rows, total] = await this.db.$transaction([this.db.app.findMany({ where, orderBy: { id: 'asc' }, skip, take }), this.db.app.count({ where })]);
    return { items: rows.map((r) => this.open(r)), total };
  }
}
