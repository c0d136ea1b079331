import { Cache } from '@inventory/core';
import type { ServiceClient } from '@inventory/refs';
import type { CustomFieldDef, ExtrasApi, NestedTag, RefResult } from '../model';

type TagData = Omit<NestedTag, 'url'>;

/** What this service's projection of tags answers (nested tags by id, tag ids by slug); misses go to extras. */
export interface TagProjection {
  nested(ids: number[], base: string): Promise<Map<number, NestedTag>>;
  idsBySlug(slugs: string[]): Promise<Map<string, number>>;
}

/**
 * ExtrasApi over HTTP with caches, dropped by the service's change-event
 * subscription when tags or custom fields change; the TTL bounds staleness if an event is lost.
 */
export class RemoteExtras implements ExtrasApi {
  private readonly cfs = new Cache<string, CustomFieldDef[]>({ max: 1_000, ttlMs: 30_000 });
  private readonly tagData = new Cache<number, TagData>({ max: 10_000, ttlMs: 30_000 });
  /** The definitions last answered per content type (a few hundred at most): served while extras is unreachable. */
  private readonly lastKnown = new Map<string, CustomFieldDef[]>();

  constructor(
    private readonly client: ServiceClient,
    /** Tags as this service keeps them (its projection of extras.tag), read before asking extras. */
    private readonly projected?: () => TagProjection,
  ) {}

  async customFields(contentType: string): Promise<CustomFieldDef[]> {
    if (!this.client.has('extras')) return this.cfs.get(contentType) ?? [];
    try {
      const fields = await this.cfs.load(contentType, async () => {
        const res = await this.client.call<{ fields: CustomFieldDef[] }>('extras', 'GET', `/internal/custom-fields?content_type=${encodeURIComponent(contentType)}`);
        return res.fields;
      });
      if (fields) this.lastKnown.set(contentType, fields);
      return fields ?? [];
    } catch (err) {
      // extras down: the definitions last seen keep reads (and writes) going; none seen yet is the outage's 503
      const known = this.lastKnown.get(contentType);
      if (known) return known;
      throw err;
    }
  }

  async resolveTags(refs: unknown[], contentType: string): Promise<RefResult[]> {
    if (!refs.length) return [];
    const res = await this.client.call<{ results: RefResult[] }>('extras', 'POST', '/internal/tags/resolve', { refs, content_type: contentType });
    return res.results;
  }

  async tags(ids: number[], base: string, projectionRead = false): Promise<Map<number, NestedTag>> {
    const local = this.projected && !projectionRead ? await this.projected().nested(ids, base) : new Map<number, NestedTag>();
    if (local.size === new Set(ids).size) return local;
    const fetched = new Map<number, TagData>();
    const missing = [...new Set(ids)].filter((id) => !local.has(id) && !this.tagData.get(id));
    if (missing.length) {
      const generation = this.tagData.current;
      const res = await this.client.call<{ tags: TagData[] }>('extras', 'POST', '/internal/tags/by-id', { ids: missing });
      for (const t of res.tags) {
        this.tagData.setIf(generation, t.id, t);
        fetched.set(t.id, t);
      }
    }
    const out = new Map<number, NestedTag>(local);
    for (const id of ids) {
      if (out.has(id)) continue;
      const t = fetched.get(id) ?? this.tagData.get(id);
      if (t) out.set(id, { id: t.id, url: `${base}/api/extras/tags/${t.id}/`, display: t.display, name: t.name, slug: t.slug, color: t.color });
    }
    return out;
  }

  async tagIdsBySlug(slugs: string[]): Promise<Map<string, number>> {
    if (!slugs.length) return new Map();
    const local = this.projected ? await this.projected().idsBySlug(slugs) : new Map<string, number>();
    const missing = slugs.filter((s) => !local.has(s));
    if (!missing.length) return local;
    const res = await this.client.call<{ ids: Record<string, number> }>('extras', 'POST', '/internal/tags/by-slug', { slugs: missing });
    return new Map([...local, ...Object.entries(res.ids)]);
  }

  invalidate(): void {
    this.cfs.clear();
    this.tagData.clear();
  }
}
