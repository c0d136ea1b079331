/**
 * DataLoader's idea in a few lines: keys asked for while one level of a
 * query resolves are loaded together, once the resolvers of that level have
 * all run (`setImmediate`: after the promise jobs that call them), so a
 * level costs one load, never one per object. One batcher per request and
 * relation: nothing is cached across requests (permissions differ).
 */
export class Batcher<K, V> {
  private pending: { key: K; resolve: (v: V) => void; reject: (e: unknown) => void }[] = [];

  constructor(private readonly load: (keys: K[]) => Promise<V[]>) {}

  get(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      if (!this.pending.length) setImmediate(() => void this.flush());
      this.pending.push({ key, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      const keys = [...new Set(batch.map((b) => b.key))];
      const values = await this.load(keys);
      const byKey = new Map(keys.map((k, i) => [k, values[i]]));
      for (const b of batch) b.resolve(byKey.get(b.key) as V);
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
  }
}

/** The batchers of one request, by relation. */
export class Batchers {
  private readonly all = new Map<string, Batcher<unknown, unknown>>();

  of<K, V>(name: string, load: (keys: K[]) => Promise<V[]>): Batcher<K, V> {
    let b = this.all.get(name);
    if (!b) this.all.set(name, (b = new Batcher(load as (keys: unknown[]) => Promise<unknown[]>)));
    return b as Batcher<K, V>;
  }
}
