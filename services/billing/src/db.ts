import { pgAdapter } from '@tollgate/kit';
import { PrismaClient } from './generated/prisma/client';

export type BillingDb = PrismaClient;

export function createBillingDb(databaseUrl: string): BillingDb {
  return new PrismaClient({ adapter: pgAdapter(databaseUrl) });
}
