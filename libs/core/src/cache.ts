import { LRUCache } from 'lru-cache';

export interface CacheOptions {
  /** Most entries kept (least recently used go first). */
  max: number;
  /** How long an entry is served (ms) unless set with a TTL of its own; 0 or less: nothing is cached. */
  ttlMs: number;
}

/** What a `loadWithTtl` loader answers: the value and, optionally, its own TTL. */
export interface Loaded<V> {
  value: V;
  ttlMs?: number;
}

/**
 * A bounded, time-limited cache (on `lru-cache`) whose entries are dropped
 * when a change event says they are stale (`delete`, `clear`).
 *
 * The generation rule: every `delete`/`clear` bumps a generation and forgets
 * the loads in flight; a load started before that is not cached after it
 * (it may carry what was just changed), so a later request asks again.
 */
export class Cache<K extends NonNullable<unknown>, V extends NonNullable<unknown>> {
  private readonly lru: LRUCache<K, V> | null;
  private readonly pending = new Map<K, Promise<Loaded<V> | undefined>>();
  private generation = 0;

  constructor(o: CacheOptions) {
    this.lru = o.ttlMs > 0 ? new LRUCache<K, V>({ max: o.max, ttl: o.ttlMs }) : null;
  }

  get(key: K): V | undefined {
    return this.lru?.get(key);
  }

  /**
   * `ttlMs` overrides the cache's TTL for this entry; 0 or less caches
   * nothing (and drops what the key held: lru-cache would keep a 0 TTL forever).
   */
  set(key: K, value: V, ttlMs?: number): void {
    if (ttlMs === undefined) this.lru?.set(key, value);
    else if (ttlMs > 0) this.lru?.set(key, value, { ttl: ttlMs });
    else this.lru?.delete(key);
  }

  get size(): number {
    return this.lru?.size ?? 0;
  }

  /** The generation now: pass it to `setIf` after a load of your own. */
  get current(): number {
    return this.generation;
  }

  /** Caches `value` (as `set` does) only when nothing was dropped since `generation` was read. */
  setIf(generation: number, key: K, value: V, ttlMs?: number): void {
    if (generation === this.generation) this.set(key, value, ttlMs);
  }

  /**
   * The cached value, or what `loader` answers (concurrent callers of one key
   * share one load; `undefined` and failures are not cached).
   */
  async load(key: K, loader: (key: K) => Promise<V | undefined>): Promise<V | undefined> {
    return this.loadWithTtl(key, async (k) => {
      const value = await loader(k);
      return value === undefined ? undefined : { value };
    });
  }

  /**
   * `load` for a loader that decides how long its answer is kept: it resolves
   * to `{ value, ttlMs }` (`ttlMs` as in `set`; omitted: the cache's TTL).
   */
  async loadWithTtl(key: K, loader: (key: K) => Promise<Loaded<V> | undefined>): Promise<V | undefined> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const generation = this.generation;
    let call = this.pending.get(key);
    if (!call) {
      const fresh: Promise<Loaded<V> | undefined> = loader(key).finally(() => {
        if (this.pending.get(key) === fresh) this.pending.delete(key);
      });
      this.pending.set(key, (call = fresh));
    }
    const loaded = await call;
    if (loaded === undefined) return undefined;
    this.setIf(generation, key, loaded.value, loaded.ttlMs);
    return loaded.value;
  }

  /** Drops one entry (true when there was one). */
  delete(key: K): boolean {
    this.generation++;
    this.pending.delete(key);
    return this.lru?.delete(key) ?? false;
  }

  /** Drops the entries whose key or value `match` accepts; the number dropped. */
  deleteWhere(match: (value: V, key: K) => boolean): number {
    this.generation++;
    this.pending.clear();
    if (!this.lru) return 0;
    const doomed: K[] = [];
    for (const [k, v] of this.lru.entries()) if (match(v, k)) doomed.push(k);
    for (const k of doomed) this.lru.delete(k);
    return doomed.length;
  }

  /** Drops everything; the number of entries dropped. */
  clear(): number {
    this.generation++;
    this.pending.clear();
    const n = this.size;
    this.lru?.clear();
    return n;
  }
}
