import { KEY_CHANGED_SUBJECTS, type EventBus, type KeyChangedEvent, type Logger, type Subscription } from '@tollgate/kit';
import type { AuthenticateKeyResponse } from '@tollgate/protos/keys';

interface Entry {
  value: AuthenticateKeyResponse;
  until: number;
}

export interface KeyCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
}

/**
 * Verified keys (the keys service's answer to checks 1–5), by SHA-256 of the key and the kind.
 * Entries live at most `ttlMs` and never past the account's valid_until; a keys.changed event
 * drops them at once. An answer fetched while any invalidation happened is not stored, so a
 * change racing a lookup can never leave a stale entry behind.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(options: KeyCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? 10_000;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /** Read before asking the keys service; pass it back to set(). */
  get version(): number {
    return this.generation;
  }

  get(keyHash: string, kind: string, now = Date.now()): AuthenticateKeyResponse | undefined {
    const id = `${keyHash}:${kind}`;
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.entries.delete(id);
      return undefined;
    }
    return entry.value;
  }

  set(keyHash: string, kind: string, value: AuthenticateKeyResponse, versionAtLookup: number, now = Date.now()): void {
    if (versionAtLookup !== this.generation) return;
    const validUntil = value.account?.validUntil ? Date.parse(value.account.validUntil) : Number.POSITIVE_INFINITY;
    const until = Math.min(now + this.ttlMs, validUntil);
    if (until <= now) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(`${keyHash}:${kind}`, { value, until });
  }

  /** Drops every entry of the key (entity "key") or of the account's keys (entity "account"). */
  invalidate(entity: KeyChangedEvent['entity'], id: number): void {
    this.generation++;
    for (const [k, entry] of this.entries) {
      const match = entity === 'key' ? entry.value.key?.id === id : entry.value.account?.id === id;
      if (match) this.entries.delete(k);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

export interface WatchedKeyCache {
  cache: KeyCache;
  stop(): Promise<void>;
}

/** A KeyCache kept current by `keys.changed.>` events on the bus. */
export async function watchedKeyCache(bus: EventBus, log: Logger, options?: KeyCacheOptions): Promise<WatchedKeyCache> {
  const cache = new KeyCache(options);
  const sub: Subscription = await bus.watch<KeyChangedEvent>(KEY_CHANGED_SUBJECTS, (m) => {
    if (m.data?.entity !== 'key' && m.data?.entity !== 'account') return log.warn({ subject: m.subject }, 'ignoring malformed keys.changed event');
    cache.invalidate(m.data.entity, m.data.id);
  });
  return { cache, stop: () => sub.stop() };
}
