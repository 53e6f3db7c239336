import { pgAdapter } from '@tollgate/kit';
import { PrismaClient } from './generated/prisma/client';

export type TasksDb = PrismaClient;

export function createTasksDb(databaseUrl: string): TasksDb {
  return new PrismaClient({ adapter: pgAdapter(databaseUrl) });
}
