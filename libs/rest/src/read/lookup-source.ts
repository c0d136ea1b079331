import { type Sql, sql, raw, ident } from '@inventory/filtering';
import type { ServiceContext } from '../model';
import { projectedModels, projection } from '../projections';

/** Where the objects of a model are looked up here: its table, or this service's projection of it. */
interface LookupSource {
  table: Sql;
  key: (k: string) => Sql;
  path: Sql | null;
  live: Sql;
}

export function lookupSource(ctx: ServiceContext, label: string): LookupSource | null {
  const local = ctx.models.get(label);
  if (local) return { table: raw(ctx.db.table(local.table)), key: (k) => ident(k), path: local.tree ? raw('_path') : null, live: raw('TRUE') };
  if (projectedModels(ctx).has(label)) {
    return { table: projection(ctx, label), key: (k) => (k === 'id' ? raw('id') : sql`(data->>${k})`), path: raw('path'), live: raw('NOT deleted') };
  }
  return null;
}

/** Resolves slug-like keys (or ids) of a model to ids, with descendants for tree filters. */
export function keyResolver(ctx: ServiceContext, label: string, key: string, tree: boolean) {
  return async (values: string[]): Promise<Map<string, number[]>> => {
    const src = lookupSource(ctx, label);
    if (src) {
      const match = key === 'id' ? sql`id = ANY(${values.map(Number)}::bigint[])` : sql`${src.key(key)} = ANY(${values}::text[])`;
      const rows = await ctx.db.query(sql`SELECT id, ${src.key(key)}::text AS k FROM ${src.table} WHERE ${src.live} AND ${match}`);
      const out = new Map<string, number[]>();
      for (const r of rows) out.set(String(r.k), [...(out.get(String(r.k)) ?? []), Number(r.id)]);
      if (tree && src.path && rows.length) {
        const roots = rows.map((r) => Number(r.id));
        const desc = await ctx.db.query(sql`SELECT id, ${src.path} AS path FROM ${src.table} WHERE ${src.live} AND ${src.path} && ${roots}::bigint[]`);
        for (const [k, ids] of out) {
          const all = new Set(ids);
          for (const d of desc) {
            const path = ((d.path ?? []) as string[] | number[]).map(Number);
            if (ids.some((i) => path.includes(i))) all.add(Number(d.id));
          }
          out.set(k, [...all]);
        }
      }
      return out;
    }
    const owner = ctx.refs.ownerOf(label);
    if (!ctx.refs.has(owner)) return new Map();
    const res = await ctx.refs.call<{ ids: Record<string, number[]> }>(owner, 'POST', '/internal/keys', { model: label, key, values, tree });
    return new Map(Object.entries(res.ids));
  };
}
