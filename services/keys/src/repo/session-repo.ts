import type { KeysDb } from './prisma-types';

export interface SessionRow {
  id: number;
  accountId: number;
  expiresAt: Date;
}

/** Console sessions: only the SHA-256 of the secret is stored; expired rows are removed as they are met. */
export class SessionRepo {
  constructor(private readonly db: KeysDb) {}

  create(data: { tokenHash: string; accountId: number; expiresAt: Date }): Promise<SessionRow> {
    return this.db.session.create({ data, select: { id: true, accountId: true, expiresAt: true } });
  }

  findByTokenHash(tokenHash: string): Promise<SessionRow | null> {
    return this.db.session.findUnique({ where: { tokenHash }, select: { id: true, accountId: true, expiresAt: true } });
  }

  async deleteByTokenHash(tokenHash: string): Promise<void> {
    await this.db.session.deleteMany({ where: { tokenHash } });
  }

  /** Ends every session of the account except the one whose hash is given. */
  async deleteForAccount(accountId: number, exceptTokenHash?: string): Promise<void> {
    await this.db.session.deleteMany({ where: { accountId, ...(exceptTokenHash && { tokenHash: { not: exceptTokenHash } }) } });
  }

  async deleteExpired(now: Date): Promise<void> {
    await this.db.session.deleteMany({ where: { expiresAt: { lt: now } } });
  }
}
