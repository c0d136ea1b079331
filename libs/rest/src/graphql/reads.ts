import type { Identity } from '@inventory/auth';
import { buildFilter, and, raw, sql, type Sql } from '@inventory/filtering';
import type { ModelDef, Row, ServiceContext } from '../model';
import { cachedFilters, orderBy, requirePermission, represent, parsePage, readSelected } from '../read';
import type { FieldSelection } from '../read/field-selection';

/**
 * GraphQL's reads are REST's: the same filters (strict: a bad value is an
 * error), the same permitted scope, ordering, SQL and serializer, so a
 * field's value is what the REST list shows for the object. Each read
 * selects and computes only the keys the query asks for, as REST's
 * `fields=` does: no count, tag or total the query does not show (a count
 * subquery per row over 4,000 interfaces was most of a level's time).
 */

/** What every read of one GraphQL request shares: who asks, and the API base for `url`s. */
export interface ReadScope {
  ctx: ServiceContext;
  identity: Identity;
  base: string;
}

export type Args = Record<string, unknown>;

/** GraphQL arguments as REST query parameters: lists repeat the parameter, as `?id=1&id=2` does. */
export function asParams(args: Args): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) if (v !== null && v !== undefined) params.append(name, String(v));
  }
  return params;
}

/** The filtered, permitted condition of a list with these arguments (ValidationError on a wrong value). */
async function listWhere(s: ReadScope, model: ModelDef, params: URLSearchParams, extra?: Sql): Promise<Sql> {
  const { ctx, identity } = s;
  const scope = requirePermission(ctx, model, identity, 'view');
  const generated = cachedFilters(ctx, model, model.customFields ? await ctx.extras.customFields(model.label) : []);
  const defs = model.callerFilters ? [...generated, ...model.callerFilters(identity)] : generated;
  const filter = await buildFilter(defs, params, { strict: true });
  return and([filter.where, scope, ...(extra ? [extra] : [])]);
}

/** `<model>_list`: one page (limit defaults to PAGINATE_COUNT, capped at MAX_PAGE_SIZE, as REST). */
export async function listObjects(s: ReadScope, model: ModelDef, args: Args, select: FieldSelection): Promise<Row[]> {
  const params = asParams(args);
  const where = await listWhere(s, model, params);
  const page = parsePage(params, s.ctx.settings.paginateCount, s.ctx.settings.maxPageSize);
  const rows = await readSelected(s.ctx, model, { where, order: orderBy(s.ctx, model, params.get('ordering')), select, limit: page.limit, offset: page.offset });
  return represent(s.ctx, model, rows, { mode: 'full', base: s.base, select });
}

/** `<model>_count`: the count REST's list would give for the same filters. */
export async function countObjects(s: ReadScope, model: ModelDef, args: Args): Promise<number> {
  const params = asParams(args);
  const where = await listWhere(s, model, params);
  const [{ n }] = await s.ctx.db.query(sql`SELECT count(*) AS n FROM ${raw(s.ctx.db.table(model.table))} t WHERE ${where}`);
  return Number(n);
}

/** Objects by id in the caller's scope, in the ids' order (null where none is visible). */
export async function objectsByIds(s: ReadScope, model: ModelDef, ids: number[], select: FieldSelection): Promise<(Row | null)[]> {
  const scope = requirePermission(s.ctx, model, s.identity, 'view');
  const rows = await readSelected(s.ctx, model, { where: and([sql`t.id = ANY(${ids}::bigint[])`, scope]), order: raw('t.id ASC'), select, limit: null });
  const reps = await represent(s.ctx, model, rows, { mode: 'full', base: s.base, select });
  const byId = new Map(reps.map((r) => [Number(r.id), r]));
  return ids.map((id) => byId.get(id) ?? null);
}

/**
 * The children of many parents at once (a page of devices' interfaces):
 * every permitted row matching `where`, in the model's ordering, with the
 * columns of `parentField` (read, not shown) naming each one's parent;
 * grouped by the caller.
 */
export async function childrenWhere(s: ReadScope, model: ModelDef, where: Sql, select: FieldSelection, parentField: string): Promise<{ rows: Row[]; reps: Row[] }> {
  const all = await listWhere(s, model, new URLSearchParams(), where);
  const withParent = { ...select, include: new Set([...(select.include ?? []), parentField]) };
  const rows = await readSelected(s.ctx, model, { where: all, order: orderBy(s.ctx, model, null), select: withParent, limit: null });
  return { rows, reps: await represent(s.ctx, model, rows, { mode: 'full', base: s.base, select }) };
}
