import { Cache } from '@inventory/core';
import { contentType } from '@inventory/refs';
import { sql, raw } from '@inventory/filtering';
import { resolveLocal, type CustomFieldDef, type ExtrasApi, type NestedTag, type RefResult, type ServiceContext } from '@inventory/rest';
import { customField, choiceSet } from './models/custom-fields';
import { tag } from './models/tags';

/** Extras answers its own questions from its own tables (other services ask over HTTP). */
export class LocalExtras implements ExtrasApi {
  private readonly cfCache = new Cache<string, CustomFieldDef[]>({ max: 1_000, ttlMs: 30_000 });

  constructor(private readonly ctx: Omit<ServiceContext, 'extras'>) {}

  async customFields(label: string): Promise<CustomFieldDef[]> {
    return (await this.cfCache.load(label, (l) => this.loadCustomFields(l))) ?? [];
  }

  private async loadCustomFields(label: string): Promise<CustomFieldDef[]> {
    const rows = await this.ctx.db.query(
      sql`SELECT cf.*, cs.name AS choice_set_name, cs.extra_choices FROM ${raw(this.ctx.db.table(customField.table))} cf
          LEFT JOIN ${raw(this.ctx.db.table(choiceSet.table))} cs ON cs.id = cf.choice_set_id
          WHERE cf.content_types @> ARRAY[${label}]::varchar[] ORDER BY cf.group_name, cf.weight, cf.name`,
    );
    const defs = rows.map(
      (r): CustomFieldDef => ({
        id: Number(r.id),
        name: String(r.name),
        type: String(r.type),
        object_type: (r.object_type as string | null) ?? null,
        content_types: r.content_types as string[],
        required: !!r.required,
        default: r.default ?? null,
        filter_logic: r.filter_logic as CustomFieldDef['filter_logic'],
        validation_minimum: (r.validation_minimum as number | null) ?? null,
        validation_maximum: (r.validation_maximum as number | null) ?? null,
        validation_regex: String(r.validation_regex ?? ''),
        choices: ((r.extra_choices as string[][] | null) ?? []).map((c) => c[0]),
        choice_set_name: (r.choice_set_name as string | null) ?? null,
      }),
    );
    return defs;
  }

  async resolveTags(refs: unknown[], label: string): Promise<RefResult[]> {
    const results = await resolveLocal(this.ctx as ServiceContext, tag, refs);
    const ids = results.filter((r): r is { id: number } => 'id' in r).map((r) => r.id);
    if (!ids.length) return results;
    const rows = await this.ctx.db.query(sql`SELECT id, name, object_types FROM ${raw(this.ctx.db.table(tag.table))} WHERE id = ANY(${ids}::bigint[])`);
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    const model = contentType(label)?.verbose_name ?? label;
    return results.map((r) => {
      if ('error' in r) return r;
      const t = byId.get(r.id)!;
      const allowed = t.object_types as string[];
      return allowed.length && !allowed.includes(label) ? { error: `Tag ${String(t.name)} cannot be assigned to ${model} objects.` } : r;
    });
  }

  async tags(ids: number[], base: string): Promise<Map<number, NestedTag>> {
    const rows = await this.tagRows(ids);
    return new Map(
      rows.map((r) => [r.id, { id: r.id, url: `${base}/api/extras/tags/${r.id}/`, display: r.name, name: r.name, slug: r.slug, color: r.color }]),
    );
  }

  async tagRows(ids: number[]): Promise<{ id: number; name: string; slug: string; color: string }[]> {
    if (!ids.length) return [];
    const rows = await this.ctx.db.query(sql`SELECT id, name, slug, color FROM ${raw(this.ctx.db.table(tag.table))} WHERE id = ANY(${[...new Set(ids)]}::bigint[])`);
    return rows.map((r) => ({ id: Number(r.id), name: String(r.name), slug: String(r.slug), color: String(r.color) }));
  }

  async tagIdsBySlug(slugs: string[]): Promise<Map<string, number>> {
    if (!slugs.length) return new Map();
    const rows = await this.ctx.db.query(sql`SELECT id, slug FROM ${raw(this.ctx.db.table(tag.table))} WHERE slug = ANY(${slugs}::text[])`);
    return new Map(rows.map((r) => [String(r.slug), Number(r.id)]));
  }

  invalidate(): void {
    this.cfCache.clear();
  }
}
