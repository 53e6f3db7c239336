export type { Account, ApiKey } from '../generated/prisma/client';
export type { KeysDb } from '../db';
