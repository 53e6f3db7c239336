export type { App as AppRow, Task as TaskRow } from '../generated/prisma/client';
export { Prisma } from '../generated/prisma/client';
export type { TasksDb } from '../db';
