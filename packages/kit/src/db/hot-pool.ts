import { createHash } from 'node:crypto';
import pg from 'pg';
import { msUntilDeadline } from '../context/request-context';
import { AppError } from '../errors';

export interface HotPoolOptions {
  /** Connections of this pool. */
  max: number;
  /** Queries allowed to wait for a connection; one more is refused with UNAVAILABLE (retry after 1 s). */
  maxWaiting: number;
  /**
   * A query that waited this long for a connection is refused the same way (default 5 s, half the
   * gateway's default call deadline). A query given its caller's deadline also stops waiting
   * `DEADLINE_MARGIN_MS` before it. Either way a saturated service answers UNAVAILABLE (HTTP 503
   * with Retry-After) before the caller gives up (504).
   */
  acquireTimeoutMs?: number;
}

const TIMESTAMP_OID = 1114;
const DEFAULT_ACQUIRE_TIMEOUT_MS = 5_000;
const DEADLINE_MARGIN_MS = 500;

/** Prisma stores `timestamp` (without time zone) columns in UTC; read them back as UTC here too. */
const types = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === TIMESTAMP_OID) return (text: string) => new Date(`${text.replace(' ', 'T')}Z`);
    return pg.types.getTypeParser(oid, format as 'text');
  }) as typeof pg.types.getTypeParser,
};

export interface HotQueryOptions {
  /** When the caller stops waiting (ms since the epoch). */
  deadline?: number;
}

/** What a repository needs of the hot pool (a pg.Pool or a HotPool). */
export interface HotQueryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[], options?: HotQueryOptions): Promise<pg.QueryResult<R>>;
}

/**
 * A plain `pg` pool for a service's hot statements (one statement per call, no interactive
 * transaction), bounded: when the pool and its queue are full the caller gets UNAVAILABLE with
 * retryAfterSeconds (HTTP 503 + Retry-After at the gateway) instead of an unbounded wait.
 */
export class HotPool {
  readonly pool: pg.Pool;

  constructor(
    connectionString: string,
    private readonly options: HotPoolOptions,
  ) {
    this.pool = new pg.Pool({ connectionString, max: options.max, connectionTimeoutMillis: options.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS, types });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.pool.on('error', () => undefined);
  }

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, values?: unknown[], options: HotQueryOptions = {}): Promise<pg.QueryResult<R>> {
    try {
      return await this.run<R>(prepared(sql, values), options.deadline);
    } catch (err) {
      if (!isPlanResultChanged(err)) throw err;
      // A table changed shape under the prepared statement (a migration while this process runs):
      // PostgreSQL refused it before running it, so it is prepared afresh under a new name.
      return this.run<R>(prepared(sql, values, true), options.deadline);
    }
  }

  private async run<R extends pg.QueryResultRow>(statement: pg.QueryConfig, deadline: number | undefined): Promise<pg.QueryResult<R>> {
    if (this.pool.waitingCount >= this.options.maxWaiting) throw busy();
    const waitBudget = statementWaitMs(deadline);
    if (waitBudget <= 0) throw busy();
    if (this.hasFreeConnection() || waitBudget >= this.acquireTimeoutMs) return this.poolQuery<R>(statement);
    const client = await this.acquireWithin(waitBudget);
    let broken: Error | undefined;
    try {
      return await client.query<R>(statement);
    } catch (err) {
      // A statement's own error leaves the connection usable; anything else (a lost socket) retires it.
      if (!(err instanceof pg.DatabaseError)) broken = err as Error;
      throw err;
    } finally {
      client.release(broken);
    }
  }

  private get acquireTimeoutMs(): number {
    return this.options.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS;
  }

  private hasFreeConnection(): boolean {
    return this.pool.waitingCount === 0 && (this.pool.idleCount > 0 || this.pool.totalCount < this.options.max);
  }

  private async poolQuery<R extends pg.QueryResultRow>(statement: pg.QueryConfig): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(statement);
    } catch (err) {
      throw isAcquireTimeout(err) ? busy() : err;
    }
  }

  /** A connection within `ms`, or UNAVAILABLE; a connection granted after that goes straight back. */
  private async acquireWithin(ms: number): Promise<pg.PoolClient> {
    const pending = this.pool.connect();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(busy()), ms);
    });
    try {
      return await Promise.race([pending, expired]);
    } catch (err) {
      pending.then((late) => late.release(), () => undefined);
      throw isAcquireTimeout(err) ? busy() : err;
    } finally {
      clearTimeout(timer);
    }
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

/** Statements prepared once per connection, by their text; past this many distinct texts, one-off. */
const MAX_PREPARED = 200;
const statementNames = new Map<string, string>();
/** How often each text was prepared afresh after its table changed shape (part of its name). */
const generations = new Map<string, number>();
/** SQLSTATE 0A000 (feature not supported) with this message: the prepared statement's result changed shape. */
const isPlanResultChanged = (err: unknown) =>
  (err as { code?: string }).code === '0A000' && /cached plan must not change result type/.test((err as Error).message);

/**
 * The hot statements are a few fixed texts: each runs as a named prepared statement (parsed and
 * planned once per connection instead of on every call). A name is the text's hash, so two texts
 * never share one; `afresh` moves a text to a new name, prepared again on every connection.
 */
function prepared(text: string, values: unknown[] | undefined, afresh = false): pg.QueryConfig {
  if (afresh) {
    generations.set(text, (generations.get(text) ?? 0) + 1);
    statementNames.delete(text);
  }
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_PREPARED) {
    name = `h${createHash('sha1').update(text).digest('hex').slice(0, 20)}g${generations.get(text) ?? 0}`;
    statementNames.set(text, name);
  }
  return { text, values, name };
}

/** UNAVAILABLE with Retry-After: the service could not take one more statement in time. */
export const serviceAtCapacity = () => new AppError('UNAVAILABLE', 'the service is at capacity; try again shortly', { retryAfterSeconds: 1 });
const busy = serviceAtCapacity;

/** How long a statement for a caller with `deadline` may wait to be sent (≤ 0: refuse it now). */
export const statementWaitMs = (deadline: number | undefined) => msUntilDeadline(deadline) - DEADLINE_MARGIN_MS;

const isAcquireTimeout = (err: unknown) => err instanceof Error && /timeout exceeded when trying to connect/i.test(err.message);
