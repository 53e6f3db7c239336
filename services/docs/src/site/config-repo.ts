import { AppError, CONFIG_CHANGED_SUBJECT, ErrorCode, type ConfigChangedEvent, type ConfigSectionName } from '@tollgate/kit';
import type { DocsDb } from '../db';
import type { Prisma } from '../generated/prisma/client';

export interface ConfigRow {
  section: string;
  value: unknown;
  version: number;
  updatedBy: number;
  updatedAt: Date;
}

const TX_OPTIONS = { timeout: 15_000, maxWait: 10_000 };

export const staleVersion = (section: string, expected: number, current: number) =>
  new AppError(ErrorCode.PreconditionFailed, `configuration section ${section} is at version ${current}, not ${expected}: it changed since you read it; read it again and retry`, { currentVersion: current });

/** Configuration sections, their history and their change events (outbox), written together. */
export class ConfigRepo {
  constructor(
    private readonly db: DocsDb,
    private readonly committed: () => void = () => {},
  ) {}

  find(section: string): Promise<ConfigRow | null> {
    return this.db.configSection.findUnique({ where: { section } });
  }

  /** Writes version expected+1 if the section is still at `expected` (0 = never written); 412 otherwise. */
  async put(section: ConfigSectionName, value: unknown, expected: number, accountId: number): Promise<ConfigRow> {
    const json = value as Prisma.InputJsonValue;
    const row = await this.db.$transaction(async (tx) => {
      const current = await tx.$queryRaw<Array<{ version: number }>>`SELECT version FROM config_sections WHERE section = ${section} FOR UPDATE`;
      const at = current[0]?.version ?? 0;
      if (at !== expected) throw staleVersion(section, expected, at);
      const version = expected + 1;
      const now = new Date();
      const saved = await tx.configSection.upsert({
        where: { section },
        create: { section, value: json, version, updatedBy: accountId, updatedAt: now },
        update: { value: json, version, updatedBy: accountId, updatedAt: now },
      });
      await tx.configChange.create({ data: { section, version, value: json, changedBy: accountId, changedAt: now } });
      const event: ConfigChangedEvent = { section, version, value, at: now.toISOString() };
      await tx.outboxEvent.create({ data: { subject: CONFIG_CHANGED_SUBJECT, payload: event as unknown as Prisma.InputJsonValue } });
      return saved;
    }, TX_OPTIONS).catch((err: unknown) => {
      // two first writes racing: the loser's insert hits the primary key
      if ((err as { code?: string })?.code === 'P2002') throw staleVersion(section, expected, expected + 1);
      throw err;
    });
    this.committed();
    return row;
  }

  async history(section: string, offset: number, limit: number): Promise<{ rows: ConfigRow[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.db.configChange.findMany({ where: { section }, orderBy: { version: 'desc' }, skip: offset, take: limit }),
      this.db.configChange.count({ where: { section } }),
    ]);
    return { rows: rows.map((r) => ({ section: r.section, value: r.value, version: r.version, updatedBy: r.changedBy, updatedAt: r.changedAt })), total };
  }
}
