import { contentType, contentTypeById } from '@inventory/refs';
import { excludedBy, type FilterDef, or, raw, sql } from '@inventory/filtering';
import { defineModel, f, TAGGED_ITEM_TABLE, type ModelDef, type Queryable, type ServiceContext } from '@inventory/rest';

/** Tags in use on objects of the given types: asked of each owning service (tags live beside the objects). */
async function usedOn(ctx: ServiceContext, labels: string[]) {
  const byService = new Map<string, string[]>();
  for (const l of labels) {
    const ct = contentType(l);
    if (ct) byService.set(ct.service, [...(byService.get(ct.service) ?? []), ct.label]);
  }
  const ids = new Set<number>();
  await Promise.all(
    [...byService].map(async ([service, types]) => {
      if (service === ctx.name) {
        const rows = await ctx.db.query(sql`SELECT DISTINCT tag_id FROM ${raw(ctx.db.table(TAGGED_ITEM_TABLE))} WHERE content_type = ANY(${types}::text[])`);
        rows.forEach((r) => ids.add(Number(r.tag_id)));
      } else if (ctx.refs.has(service)) {
        const res = await ctx.refs.call<{ ids: number[] }>(service, 'POST', '/internal/tags/used', { content_types: types });
        res.ids.forEach((id) => ids.add(id));
      }
    }),
  );
  return sql`t.id = ANY(${[...ids]}::bigint[])`;
}

const taggable = (label: string) => !!contentType(label)?.features.tags;

export const tag: ModelDef = defineModel({
  label: 'extras.tag',
  endpoint: 'tags',
  verboseName: 'tag',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    color: f.color({ default: '9e9e9e' }),
    description: f.description(),
    object_types: f.contentTypes({ allowed: taggable, default: [] }),
    tagged_items: f.integer({ readOnly: true, virtual: true }),
  },
  tags: false,
  customFields: false,
  brief: ['name', 'slug', 'color'],
  display: (r) => String(r.name),
  ordering: ['name'],
  search: ['name', 'slug', 'description'],
  skipFilters: ['object_types'],
  filters: (ctx): FilterDef[] => {
    const byId = (v: string) => contentTypeById(Number(v))?.label ?? '';
    return [
      {
        kind: 'method',
        name: 'object_types',
        valueType: 'integer',
        // NetBox's ModelMultipleChoiceFilter on the many-to-many: `__n` is an exclude (tags allowed on none of them)
        lookups: ['n'],
        apply: (values, lookup) => {
          const any = or(values.map((v) => sql`t.object_types @> ARRAY[${byId(v)}]::varchar[]`));
          return excludedBy(lookup, sql`COALESCE(${any}, FALSE)`);
        },
      },
      {
        kind: 'method',
        name: 'content_type',
        apply: (values) => usedOn(ctx, values.map((v) => contentType(v)?.label ?? v)),
      },
      {
        kind: 'method',
        name: 'content_type_id',
        valueType: 'integer',
        apply: (values) => usedOn(ctx, values.map(byId)),
      },
      {
        kind: 'method',
        name: 'for_object_type_id',
        valueType: 'integer',
        apply: (values) => {
          const label = byId(values[values.length - 1]);
          return sql`(cardinality(t.object_types) = 0 OR t.object_types @> ARRAY[${label}]::varchar[])`;
        },
      },
    ];
  },
  hooks: {
    decorate: async (rows, out, { brief, service, q, wants }) => {
      if (brief || !rows.length || wants?.('tagged_items') === false) return;
      const counts = await taggedItems(service, q, rows.map((r) => Number(r.id)));
      out.forEach((o) => (o.tagged_items = counts.get(Number(o.id)) ?? 0));
    },
  },
});

/** Tags are counted where they are used: here and in every other service, one call each per page. */
async function taggedItems(ctx: ServiceContext, q: Queryable, ids: number[]): Promise<Map<number, number>> {
  const totals = new Map<number, number>(ids.map((id) => [id, 0]));
  const local = await q.query(
    sql`SELECT tag_id, count(*) AS n FROM ${raw(ctx.db.table(TAGGED_ITEM_TABLE))} WHERE tag_id = ANY(${ids}::bigint[]) GROUP BY 1`,
  );
  for (const r of local) totals.set(Number(r.tag_id), Number(r.n));
  const remote = ctx.refs.services().filter((s) => s !== ctx.name && s !== 'users' && s !== 'gateway');
  const answers = await Promise.all(
    remote.map((s) => ctx.refs.call<{ counts: Record<string, number> }>(s, 'POST', '/internal/tags/counts', { ids }).catch(() => ({ counts: {} }))),
  );
  for (const a of answers) for (const [k, n] of Object.entries(a.counts)) totals.set(Number(k), (totals.get(Number(k)) ?? 0) + n);
  return totals;
}

