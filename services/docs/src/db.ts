import { pgAdapter } from '@tollgate/kit';
import { PrismaClient } from './generated/prisma/client';

export type DocsDb = PrismaClient;

export function createDocsDb(databaseUrl: string): DocsDb {
  return new PrismaClient({ adapter: pgAdapter(databaseUrl) });
}
