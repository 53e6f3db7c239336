import { KEY_CHANGED_SUBJECTS, type EventBus, type KeyChangedEvent, type Logger, type Subscription } from '@tollgate/kit';
import type { Account, AuthenticateKeyResponse } from '@tollgate/protos/keys';

/** What a cached answer belongs to: dropped when its key or its account changes. */
export interface CachedOwner {
  keyId?: number;
  accountId?: number;
  /** The account's valid_until (RFC 3339), '' = none: an entry never outlives it. */
  validUntil?: string;
}

interface Entry<V> {
  value: V;
  owner: CachedOwner;
  until: number;
}

export interface CacheOptions {
  ttlMs?: number;
  maxEntries?: number;
}

/**
 * Answers of the keys service (a verified API key, a user token's account), by an id made of a
 * SHA-256 of the credential. Entries live at most `ttlMs` and never past the account's
 * valid_until; a keys.changed event drops them at once. An answer fetched while any invalidation
 * happened is not stored, so a change racing a lookup can never leave a stale entry behind.
 * Concurrent misses of one id ask the keys service once.
 */
export class ChangeAwareCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly lookups = new Map<string, Promise<V>>();
  private generation = 0;
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly ownerOf: (value: V) => CachedOwner,
    options: CacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 10_000;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /** Read before asking the keys service; pass it back to set(). */
  get version(): number {
    return this.generation;
  }

  get(id: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.entries.delete(id);
      return undefined;
    }
    return entry.value;
  }

  set(id: string, value: V, versionAtLookup: number, now = Date.now()): void {
    if (versionAtLookup !== this.generation) return;
    const owner = this.ownerOf(value);
    const validUntil = owner.validUntil ? Date.parse(owner.validUntil) : Number.POSITIVE_INFINITY;
    const until = Math.min(now + this.ttlMs, validUntil);
    if (until <= now) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, { value, owner, until });
  }

  /** The cached answer, or `fetch()`'s (stored when no change happened meanwhile); failures are not cached. */
  through(id: string, fetch: () => Promise<V>): Promise<V> {
    const cached = this.get(id);
    if (cached !== undefined) return Promise.resolve(cached);
    const inFlight = this.lookups.get(id);
    if (inFlight) return inFlight;
    const version = this.generation;
    const lookup = fetch()
      .then((answer) => {
        this.set(id, answer, version);
        return answer;
      })
      .finally(() => this.lookups.delete(id));
    this.lookups.set(id, lookup);
    return lookup;
  }

  /** Drops every entry of the key (entity "key") or of the account (entity "account"). */
  invalidate(entity: KeyChangedEvent['entity'], id: number): void {
    this.generation++;
    for (const [k, entry] of this.entries) {
      const match = entity === 'key' ? entry.owner.keyId === id : entry.owner.accountId === id;
      if (match) this.entries.delete(k);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Verified API keys (the keys service's answer to checks 1–5), by key hash and kind. */
export type KeyCache = ChangeAwareCache<AuthenticateKeyResponse>;
/** Accounts of user tokens and console sessions, by credential hash. */
export type AccountCache = ChangeAwareCache<Account>;

export const newKeyCache = (options?: CacheOptions): KeyCache =>
  new ChangeAwareCache((a) => ({ keyId: a.key?.id, accountId: a.account?.id, validUntil: a.account?.validUntil }), options);
export const newAccountCache = (options?: CacheOptions): AccountCache => new ChangeAwareCache((a) => ({ accountId: a.id, validUntil: a.validUntil }), options);

export interface WatchedCaches {
  keys: KeyCache;
  accounts: AccountCache;
  stop(): Promise<void>;
}

/** The gateway's caches of keys-service answers, kept current by `keys.changed.>` events on the bus. */
export async function watchedCaches(bus: EventBus, log: Logger, options?: CacheOptions): Promise<WatchedCaches> {
  const keys = newKeyCache(options);
  const accounts = newAccountCache(options);
  const sub: Subscription = await bus.watch<KeyChangedEvent>(KEY_CHANGED_SUBJECTS, (m) => {
    if (m.data?.entity !== 'key' && m.data?.entity !== 'account') return log.warn({ subject: m.subject }, 'ignoring malformed keys.changed event');
    keys.invalidate(m.data.entity, m.data.id);
    accounts.invalidate(m.data.entity, m.data.id);
  });
  return { keys, accounts, stop: () => sub.stop() };
}

/**
 * Drops an account's cached answers in this gateway right away, for a change made through it (the
 * keys.changed event reaches every gateway too, an instant later).
 */
export function forgetAccount(caches: { keyCache?: KeyCache; accountCache?: AccountCache }, accountId: number): void {
  caches.keyCache?.invalidate('account', accountId);
  caches.accountCache?.invalidate('account', accountId);
}
