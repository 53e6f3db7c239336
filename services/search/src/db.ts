import { pgAdapter } from '@tollgate/kit';
import { PrismaClient } from './generated/prisma/client';

export type SearchDb = PrismaClient;

export function createSearchDb(databaseUrl: string): SearchDb {
  return new PrismaClient({ adapter: pgAdapter(databaseUrl) });
}
