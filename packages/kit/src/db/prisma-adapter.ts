import { PrismaPg } from '@prisma/adapter-pg';

/** Driver adapter for `new PrismaClient({ adapter: pgAdapter(url) })`; `max` caps the pool size. */
export function pgAdapter(connectionString: string, options: { max?: number } = {}): PrismaPg {
  return new PrismaPg({ connectionString, ...(options.max === undefined ? {} : { max: options.max }) });
}
