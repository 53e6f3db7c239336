import { AppError, ErrorCode, type GrpcClient } from '@tollgate/kit';
import type { Account, KeysClient } from '@tollgate/protos/keys';

const ENABLED = '启用';

export interface Reader {
  accountId: number;
  isAdmin: boolean;
  /** May use the docs API at all: enabled, still valid, docs_read or admin. */
  mayReadDocs: boolean;
}

/** The subscriber accounts as the keys service knows them now (a deleted account reads nothing). */
export class Readers {
  constructor(private readonly keys: GrpcClient<KeysClient>) {}

  /** One lookup per distinct account of one event. */
  async of(accountIds: number[]): Promise<Map<number, Reader>> {
    const out = new Map<number, Reader>();
    await Promise.all(
      [...new Set(accountIds)].map(async (id) => {
        // Read as the subscriber itself: its own profile, nothing more.
        const account = await this.keys.getAccount({ actor: { accountId: id, isAdmin: false, apiKeyId: 0 }, accountId: id }).catch((err: unknown) => {
          if (err instanceof AppError && err.code === ErrorCode.NotFound) return null;
          throw err;
        });
        if (account) out.set(id, readerOf(account));
      }),
    );
    return out;
  }
}

export function readerOf(a: Account): Reader {
  const isAdmin = a.permissions?.admin === true;
  const valid = a.status === ENABLED && (!a.validUntil || new Date(a.validUntil).getTime() > Date.now());
  return { accountId: a.id, isAdmin, mayReadDocs: valid && (isAdmin || a.permissions?.docsRead === true) };
}

/** The docs service's rule (author, admin, or published) for a reader allowed to read documents. */
export function mayReadDocument(r: Reader, doc: { authorAccountId: number; status: string }): boolean {
  return r.mayReadDocs && (r.isAdmin || r.accountId === doc.authorAccountId || doc.status === 'published');
}
