import type { AppRecord } from '../domain/types';
import { toApp } from './mappers';
import { Prisma, type TasksDb } from './prisma-types';

export type NewApp = Omit<AppRecord, 'createdAt' | 'updatedAt'>;
export type AppChanges = Partial<Omit<NewApp, 'id' | 'kind' | 'ownerAccountId'>>;

const json = (v: Record<string, unknown>) => v as Prisma.InputJsonValue;

/** Apps in PostgreSQL. */
export class AppRepo {
  constructor(private readonly db: TasksDb) {}

  async find(id: string): Promise<AppRecord | null> {
    const row = await this.db.app.findUnique({ where: { id } });
    return row && toApp(row);
  }

  async findByReporterTokenHash(hash: string): Promise<AppRecord | null> {
    const row = await this.db.app.findUnique({ where: { reporterTokenHash: hash } });
    return row && toApp(row);
  }

  /** Creates the app; null when the id is taken. */
  async create(app: NewApp): Promise<AppRecord | null> {
    try {
      return toApp(await this.db.app.create({ data: { ...app, settings: json(app.settings) } }));
    } catch (err) {
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') return null;
      throw err;
    }
  }

  /** Inserts the apps that do not exist yet; existing ones are left as they are. */
  async createMissing(apps: NewApp[]): Promise<number> {
    const res = await this.db.app.createMany({ data: apps.map((a) => ({ ...a, settings: json(a.settings) })), skipDuplicates: true });
    return res.count;
  }

  /** Sets the settings of an app whose settings are still `{}`; 1 when it did. */
  async fillEmptySettings(id: string, settings: Record<string, unknown>): Promise<number> {
    return this.db.$executeRaw`UPDATE apps SET settings = ${JSON.stringify(settings)}::jsonb, updated_at = now() WHERE id = ${id} AND settings = '{}'::jsonb`;
  }

  async update(id: string, changes: AppChanges): Promise<AppRecord> {
    const { settings, ...rest } = changes;
    return toApp(await this.db.app.update({ where: { id }, data: { ...rest, ...(settings && { settings: json(settings) }) } }));
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
    return { items: rows.map(toApp), total };
  }
}
