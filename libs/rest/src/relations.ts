import { type Sql, sql, raw, and, ident } from '@inventory/filtering';
import { columnOf } from './fields';
import { flattenAttrs, pyRepr } from './format';
import type { RefResult } from './features';
import type { ModelDef } from './model';
import type { Queryable } from './db';
import type { ServiceContext } from './registry';

const NOT_FOUND_ID = (id: unknown) => `Related object not found using the provided numeric ID: ${String(id)}`;
const UNRECOGNISED = (v: unknown) =>
  `Related objects must be referenced by numeric ID or by dictionary of attributes. Received an unrecognized value: ${typeof v === 'string' ? v : JSON.stringify(v)}`;

/** Condition for an attribute set on a local model, following relations (`{"site": {"name": "s1"}}`). */
export function attributeCondition(ctx: ServiceContext, model: ModelDef, attrs: Record<string, unknown>, alias: string): Sql {
  const parts: Sql[] = [];
  for (const [key, value] of Object.entries(attrs)) {
    if (key === 'id') {
      parts.push(sql`${raw(alias)}.id = ${Number(value)}`);
      continue;
    }
    const field = model.fields[key];
    const column = field ? columnOf(key, field) : null;
    if (!field || (!column && field.type !== 'fk')) {
      const choices = ['id', ...Object.keys(model.fields)].sort().join(', ');
      throw new AttributeError(`Cannot resolve keyword '${key}' into field. Choices are: ${choices}`);
    }
    const col = sql`${raw(alias)}.${ident(column!)}`;
    if (field.type === 'fk' && value !== null && typeof value === 'object') {
      const target = ctx.models.get(field.to);
      if (!target) throw new AttributeError(`Cannot resolve keyword '${key}' across services.`);
      const sub = `${alias}_${key}`;
      parts.push(
        sql`${col} IN (SELECT ${raw(sub)}.id FROM ${raw(ctx.db.table(target.table))} ${raw(sub)} WHERE ${attributeCondition(ctx, target, value as Record<string, unknown>, sub)})`,
      );
    } else if (value === null) {
      parts.push(sql`${col} IS NULL`);
    } else {
      parts.push(sql`${col} = ${typeof value === 'object' ? JSON.stringify(value) : value}`);
    }
  }
  return and(parts);
}

export class AttributeError extends Error {}

/**
 * Resolves references to objects of a local model: ids (or numeric strings)
 * in one query, attribute sets one query each.
 */
export async function resolveLocal(ctx: ServiceContext, model: ModelDef, refs: unknown[], q: Queryable = ctx.db): Promise<RefResult[]> {
  const results: RefResult[] = new Array(refs.length);
  const ids = new Map<number, number[]>();
  for (let i = 0; i < refs.length; i++) {
    const ref = refs[i];
    const id = typeof ref === 'number' ? ref : typeof ref === 'string' && /^\d+$/.test(ref) ? Number(ref) : null;
    if (id !== null && Number.isInteger(id)) {
      const list = ids.get(id) ?? [];
      list.push(i);
      ids.set(id, list);
    } else if (ref && typeof ref === 'object' && !Array.isArray(ref)) {
      const attrs = ref as Record<string, unknown>;
      const printed = pyRepr(flattenAttrs(attrs));
      try {
        const rows = await q.query(
          sql`SELECT t.id FROM ${raw(ctx.db.table(model.table))} t WHERE ${attributeCondition(ctx, model, attrs, 't')} LIMIT 2`,
        );
        if (rows.length === 1) results[i] = { id: Number(rows[0].id) };
        else if (rows.length === 0) results[i] = { error: `Related object not found using the provided attributes: ${printed}` };
        else results[i] = { error: `Multiple objects match the provided attributes: ${printed}` };
      } catch (err) {
        if (err instanceof AttributeError) results[i] = { error: err.message };
        else if ((err as { code?: string }).code?.startsWith('22')) {
          results[i] = { error: `Related object not found using the provided attributes: ${printed}` };
        } else throw err;
      }
    } else {
      results[i] = { error: UNRECOGNISED(ref) };
    }
  }
  if (ids.size) {
    const found = await q.query(sql`SELECT id FROM ${raw(ctx.db.table(model.table))} WHERE id = ANY(${[...ids.keys()]}::bigint[])`);
    const have = new Set(found.map((r) => Number(r.id)));
    for (const [id, positions] of ids) {
      for (const p of positions) results[p] = have.has(id) ? { id } : { error: NOT_FOUND_ID(id) };
    }
  }
  return results;
}

/** Resolves references to any model: locally, or in one round trip to the owning service. */
export async function resolveRefs(ctx: ServiceContext, label: string, refs: unknown[], q?: Queryable): Promise<RefResult[]> {
  if (refs.length === 0) return [];
  const local = ctx.models.get(label);
  if (local) return resolveLocal(ctx, local, refs, q);
  const owner = ctx.refs.ownerOf(label);
  if (!ctx.refs.has(owner)) return refs.map((r) => ({ error: typeof r === 'number' ? NOT_FOUND_ID(r) : `Related object not found: ${label} is not available.` }));
  const res = await ctx.refs.call<{ results: RefResult[] }>(owner, 'POST', '/internal/resolve', { model: label, refs });
  return res.results;
}
