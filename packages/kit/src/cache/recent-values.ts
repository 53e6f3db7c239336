/**
 * Values that cost a lookup and may be a little old. `recent(key)` answers the last value at once
 * and, once it is older than `maxAgeMs`, looks it up again in the background; it waits only for a
 * key never looked up (or forgotten). `current(key)` waits for a lookup. Concurrent lookups of one
 * key share one call. A failed background lookup goes to `onRefreshFailed` and the last value stays.
 */
export class RecentValues<K, V> {
  private readonly known = new Map<K, { value: V; at: number }>();
  private readonly asking = new Map<K, Promise<V>>();

  constructor(
    private readonly lookup: (key: K) => Promise<V>,
    private readonly options: {
      maxAgeMs: number;
      /** Keys remembered at most; beyond, the memory starts again. */
      maxKeys?: number;
      onRefreshFailed?: (key: K, err: unknown) => void;
      now?: () => number;
    },
  ) {}

  current(key: K): Promise<V> {
    const shared = this.asking.get(key);
    if (shared) return shared;
    const now = this.options.now ?? Date.now;
    const asked = this.lookup(key)
      .then((value) => {
        if (this.known.size >= (this.options.maxKeys ?? Infinity)) this.known.clear();
        this.known.set(key, { value, at: now() });
        return value;
      })
      .finally(() => this.asking.delete(key));
    this.asking.set(key, asked);
    return asked;
  }

  recent(key: K): V | Promise<V> {
    const known = this.known.get(key);
    if (!known) return this.current(key);
    if ((this.options.now ?? Date.now)() - known.at >= this.options.maxAgeMs) {
      this.current(key).catch((err: unknown) => this.options.onRefreshFailed?.(key, err));
    }
    return known.value;
  }
}
