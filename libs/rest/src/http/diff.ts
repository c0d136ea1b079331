import type { Request, Response } from 'express';
import { NotFound, ValidationError, sendJson } from '@inventory/core';
import { buildFilter, sql, raw, and, type Sql } from '@inventory/filtering';
import { HISTORY_SUFFIX, historyName, type ModelDef, type Row, type ServiceContext } from '../model';
import {
  baseUrl,
  cachedFilters,
  fetchByIds,
  identityOf,
  LIST_ACTION_PARAMS,
  pageLinks,
  parseAsOf,
  parseId,
  parsePage,
  READ_OPTION_PARAMS,
  readAt,
  represent,
  requestUrl,
  requirePermission,
} from '../read';

/*
 * What changed between two moments (docs/decisions/034): the REST
 * representations read as of `from` and as of `to` (the as_of read), compared
 * field by field. One object (`{id}/diff/`), or a page of the objects of a
 * list (its filters, matched at either moment) whose rows changed between them.
 */

type Change = { from: unknown; to: unknown };
export type Action = 'created' | 'deleted' | 'updated' | 'unchanged';

export interface ObjectDiff {
  id: number;
  url: unknown;
  display: unknown;
  action: Action;
  changes: Record<string, Change>;
}

/** The two moments: `from` required, `to` now when absent; `from` after `to` is a 400. */
function interval(ctx: ServiceContext, params: URLSearchParams): { from: string; to: string } {
  const fromText = params.get('from');
  if (!fromText) throw new ValidationError({ from: ['This field is required.'] });
  const from = parseAsOf(ctx, fromText, 'from');
  const toText = params.get('to');
  const to = toText ? parseAsOf(ctx, toText, 'to') : new Date().toISOString();
  if (Date.parse(from) > Date.parse(to)) throw new ValidationError({ to: ['Must not be before from.'] });
  return { from, to };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Field changes between two representations of one object (either may be absent). */
export function compare(id: number, before: Row | undefined, after: Row | undefined): ObjectDiff {
  const action: Action = !before ? 'created' : !after ? 'deleted' : 'updated';
  const changes: Record<string, Change> = {};
  for (const key of new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])) {
    const from = before?.[key] ?? null;
    const to = after?.[key] ?? null;
    if (!same(from, to)) changes[key] = { from, to };
  }
  const shown = after ?? before!;
  return { id, url: shown.url, display: shown.display, action: action === 'updated' && !Object.keys(changes).length ? 'unchanged' : action, changes };
}

/** The objects' representations as of one moment, by id. */
async function representAt(ctx: ServiceContext, model: ModelDef, ids: number[], at: string, scope: Sql, base: string): Promise<Map<number, Row>> {
  return readAt(at, async () => {
    const rows = await fetchByIds(ctx, model, ids, ctx.db, scope);
    const reps = await represent(ctx, model, rows, { mode: 'full', base });
    return new Map(reps.map((r) => [Number(r.id), r]));
  });
}

/** GET `{list}{id}/diff/?from=&to=`. */
export async function objectDiffHandler(ctx: ServiceContext, model: ModelDef, req: Request, res: Response): Promise<void> {
  const id = parseId(req.params.id);
  const scope = requirePermission(ctx, model, identityOf(res), 'view');
  const base = baseUrl(req, ctx.settings.publicUrl);
  const { from, to } = interval(ctx, requestUrl(req, base).searchParams);
  const before = (await representAt(ctx, model, [id], from, scope, base)).get(id);
  const after = (await representAt(ctx, model, [id], to, scope, base)).get(id);
  if (!before && !after) throw new NotFound();
  sendJson(res, 200, { from, to, ...compare(id, before, after) });
}

/** Ids of the model's objects whose rows changed in (from, to]: a version began or ended in it. */
async function changedIds(ctx: ServiceContext, model: ModelDef, from: string, to: string): Promise<number[]> {
  const h = raw(ctx.db.table(historyName(model.table, HISTORY_SUFFIX)));
  const rows = await readAt(null, () =>
    ctx.db.query(sql`SELECT DISTINCT id FROM ${h}
      WHERE (lower("__valid") > ${from}::timestamptz AND lower("__valid") <= ${to}::timestamptz)
         OR (upper("__valid") > ${from}::timestamptz AND upper("__valid") <= ${to}::timestamptz)`),
  );
  return rows.map((r) => Number(r.id));
}

/** Of `ids`, those matching `where` as of `at`. */
async function matching(ctx: ServiceContext, model: ModelDef, ids: number[], where: Sql, at: string): Promise<number[]> {
  const rows = await readAt(at, () => ctx.db.query(sql`SELECT t.id FROM ${raw(ctx.db.table(model.table))} t WHERE t.id = ANY(${ids}::bigint[]) AND ${where}`));
  return rows.map((r) => Number(r.id));
}

/** GET `{list}diff/?from=&to=&<filters>`: the objects that changed, in id order, paged as a list. */
export async function listDiffHandler(ctx: ServiceContext, model: ModelDef, req: Request, res: Response): Promise<void> {
  const identity = identityOf(res);
  const scope = requirePermission(ctx, model, identity, 'view');
  const base = baseUrl(req, ctx.settings.publicUrl);
  const url = requestUrl(req, base);
  const params = url.searchParams;
  const { from, to } = interval(ctx, params);
  const generated = cachedFilters(ctx, model, model.customFields ? await ctx.extras.customFields(model.label) : []);
  const defs = model.callerFilters ? [...generated, ...model.callerFilters(identity)] : generated;
  const filter = await buildFilter(defs, params, { strict: ctx.settings.strictFiltering, extraReserved: [...READ_OPTION_PARAMS, ...LIST_ACTION_PARAMS, 'from', 'to'] });
  const where = and([filter.where, scope]);
  const changed = await changedIds(ctx, model, from, to);
  // an object belongs to the list when it matched the filters at either moment
  const ids = changed.length ? [...new Set([...(await matching(ctx, model, changed, where, from)), ...(await matching(ctx, model, changed, where, to))])].sort((a, b) => a - b) : [];
  const page = parsePage(params, ctx.settings.paginateCount, ctx.settings.maxPageSize);
  const shown = page.limit === null ? ids.slice(page.offset) : ids.slice(page.offset, page.offset + page.limit);
  const before = shown.length ? await representAt(ctx, model, shown, from, scope, base) : new Map<number, Row>();
  const after = shown.length ? await representAt(ctx, model, shown, to, scope, base) : new Map<number, Row>();
  const results = shown.filter((id) => before.has(id) || after.has(id)).map((id) => compare(id, before.get(id), after.get(id)));
  const links = pageLinks(url, page, ids.length);
  sendJson(res, 200, { count: ids.length, next: links.next, previous: links.previous, from, to, results });
}
