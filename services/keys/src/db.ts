import { pgAdapter } from '@tollgate/kit';
import { PrismaClient } from './generated/prisma/client';

export type KeysDb = PrismaClient;

export function createKeysDb(databaseUrl: string): KeysDb {
  return new PrismaClient({ adapter: pgAdapter(databaseUrl) });
}
