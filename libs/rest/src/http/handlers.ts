import type { Request, Response } from 'express';
import { NotFound, PermissionDenied, ValidationError, sendJson } from '@inventory/core';
import type { Action } from '@inventory/auth';
import { buildFilter, sql, raw, and, type Sql } from '@inventory/filtering';
import type { Tx, ModelDef, ServiceContext, Row, WriteContext } from '../model';
import { checkIfMatch, etagOf } from './etag';
import {
  cachedFilters,
  pageLinks,
  parsePage,
  fetchByIds,
  fetchPage,
  orderBy,
  identityOf,
  ignoredHeader,
  modeOf,
  parseId,
  requestUrl,
  requirePermission,
  wantsBrief,
  represent,
  CONFIG_CONTEXT_KEY,
  excludesConfigContext,
  READ_OPTION_PARAMS,
  listWithOptions,
  parseFieldSelection,
  parseReadOptions,
  readOne,
  baseUrl,
  exportTarget,
  sendExport,
  LIST_ACTION_PARAMS,
  withSavedFilters,
  foldFor,
  fieldsFor,
} from '../read';
import { optionsBody } from './options';
import { capture, runWrite, type Respond, type WriteResult, notADict, prepare, insertMany, update, afterSave, remove, type Prepared, uniqueErrors, keptIdOf, takenIds, advanceSequence, keepCreated } from '../write';
import { checkRemoteProtected, warmReferences, type Reserved } from '../references';
import { authorize } from '@inventory/auth';

/** One handler per verb of a model's list and detail endpoints; each write runs in `runWrite`. */
export interface ModelHandlers {
  list(req: Request, res: Response): Promise<void>;
  retrieve(req: Request, res: Response): Promise<void>;
  create(req: Request, res: Response): Promise<void>;
  update(req: Request, res: Response, partial: boolean): Promise<void>;
  bulkUpdate(req: Request, res: Response, partial: boolean): Promise<void>;
  destroy(req: Request, res: Response): Promise<void>;
  bulkDestroy(req: Request, res: Response): Promise<void>;
  options(req: Request, res: Response, detail: boolean): void;
}

export function modelHandlers(ctx: ServiceContext, model: ModelDef): ModelHandlers {
  const e: Endpoint = { ctx, model, table: raw(ctx.db.table(model.table)) };
  return {
    list: (req, res) => listHandler(e, req, res),
    retrieve: (req, res) => retrieveHandler(e, req, res),
    create: (req, res) => createHandler(e, req, res),
    update: (req, res, partial) => updateHandler(e, req, res, partial),
    bulkUpdate: (req, res, partial) => bulkUpdateHandler(e, req, res, partial),
    destroy: (req, res) => destroyHandler(e, req, res),
    bulkDestroy: (req, res) => bulkDestroyHandler(e, req, res),
    options: (_req, res, detail) => optionsHandler(e, _req, res, detail),
  };
}

/** What every handler of one model's endpoints works with. */
interface Endpoint {
  ctx: ServiceContext;
  model: ModelDef;
  /** The model's table, as SQL. */
  table: Sql;
}

/** The answer to a write: the written objects as they are after the commit (a delete has none). */
function respond(e: Endpoint, req: Request): Respond {
  const { ctx, model } = e;
  const base = (r: Request) => baseUrl(r, ctx.settings.publicUrl);
  // ?brief=1 answers a write in the brief form, as NetBox's brief serializer does
  const params = requestUrl(req, 'http://internal').searchParams;
  const brief = wantsBrief(params);
  // exclude=config_context: the answer leaves it out (the write's own representation, made for its event, has it)
  const exclude = !!model.configContext && excludesConfigContext(params);
  return async ({ status, ids, bulk }, written) => {
    if (status === 204) return { headers: {}, body: '' };
    const rows = written ? ids.map((id) => written.rows.get(id)!) : await fetchByIds(ctx, model, ids);
    const reps =
      written && !brief
        ? ids.map((id) => (exclude ? withoutKey(written.reps.get(id)!, CONFIG_CONTEXT_KEY) : written.reps.get(id)!))
        : await represent(ctx, model, rows.filter(Boolean), { mode: brief ? 'brief' : 'full', base: base(req), excludeConfigContext: exclude });
    if (bulk) return { headers: {}, body: JSON.stringify(reps) };
    if (!rows.length) throw new NotFound(); // deleted since, by somebody else
    const headers: Record<string, string> = { ETag: etagOf(rows[0]) };
    if (status === 201) headers.Location = String(reps[0].url);
    return { headers, body: JSON.stringify(reps[0]) };
  };
}

/** The row to change, locked, inside the caller's scope; If-Match checked against it. */
async function lockOne(e: Endpoint, req: Request, wctx: WriteContext, scope: Sql): Promise<Row> {
  const { table } = e;
  const id = parseId(req.params.id);
  const [existing] = await wctx.tx.query(sql`SELECT * FROM ${table} t WHERE t.id = ${id} AND ${scope} FOR UPDATE`);
  if (!existing) throw new NotFound();
  checkIfMatch(req, existing);
  return existing;
}

/** GET of the list: filters, saved filters, read options, export, or NetBox's page. */
async function listHandler(e: Endpoint, req: Request, res: Response): Promise<void> {
  const { ctx, model } = e;
  const base = (r: Request) => baseUrl(r, ctx.settings.publicUrl);
  const identity = identityOf(res);
  const scope = requirePermission(ctx, model, identity, 'view');
  const url = requestUrl(req, base(req));
  const params = url.searchParams;
  // ?export=<name>: the template is found before the filters are read (none of that name: 404), as NetBox does
  const exporting = params.has('export') ? await exportTarget(ctx, model, params.get('export') ?? '') : null;
  const generated = cachedFilters(ctx, model, model.customFields ? await ctx.extras.customFields(model.label) : []);
  const defs = model.callerFilters ? [...generated, ...model.callerFilters(identity)] : generated;
  // a model's own filter named like a read option (an ASN range's `start`) wins over it: NetBox 3.7's filter comes first
  const shadowed = READ_OPTION_PARAMS.filter((p) => defs.some((d) => d.name === p));
  const reserved = [...(shadowed.length ? READ_OPTION_PARAMS.filter((p) => !shadowed.includes(p)) : READ_OPTION_PARAMS), ...LIST_ACTION_PARAMS];
  // ?filter= / ?filter_id=: the saved filters' parameters join the request's (saved-filters.ts)
  const filterParams = await withSavedFilters(ctx, model, params, identity);
  const filter = await buildFilter(defs, filterParams, { strict: ctx.settings.strictFiltering, extraReserved: reserved });
  if (filter.ignored.length) res.setHeader('X-Ignored-Parameters', ignoredHeader(filter.ignored));
  if (exporting) {
    const select = parseFieldSelection(params);
    const order = orderBy(ctx, model, params.get('ordering'));
    return sendExport(ctx, model, res, exporting, { where: and([filter.where, scope]), order, base: base(req), mode: modeOf(params, select), select });
  }
  // fields=, omit=, count=false, start=, cursor= (read-options.ts); without them, NetBox 3.7's list as it was
  const options = parseReadOptions(shadowed.length ? withoutParams(params, shadowed) : params);
  if (options) return sendJson(res, 200, await listWithOptions(ctx, model, { url, where: and([filter.where, scope]), base: base(req), options }));
  const page = parsePage(params, ctx.settings.paginateCount, ctx.settings.maxPageSize);
  const mode = wantsBrief(params) ? 'brief' : 'full';
  const { rows, count } = await fetchPage(ctx, model, {
    where: and([filter.where, scope]),
    order: orderBy(ctx, model, params.get('ordering')),
    limit: page.limit,
    offset: page.offset,
    fold: foldFor(ctx, model, fieldsFor(model, mode), mode === 'full'),
  });
  const results = await represent(ctx, model, rows, {
    mode,
    base: base(req),
    excludeConfigContext: excludesConfigContext(params),
  });
  const links = pageLinks(url, page, count);
  sendJson(res, 200, { count, next: links.next, previous: links.previous, results });
}

/** GET of one object (with `fields=` / `omit=`), with its ETag. */
async function retrieveHandler(e: Endpoint, req: Request, res: Response): Promise<void> {
  const { ctx, model } = e;
  const base = (r: Request) => baseUrl(r, ctx.settings.publicUrl);
  const id = parseId(req.params.id);
  const scope = requirePermission(ctx, model, identityOf(res), 'view');
  const params = requestUrl(req, base(req)).searchParams;
  // fields= / omit= (NetBox 4.x): only what is shown is read and computed
  const select = parseFieldSelection(params);
  const [row] = select ? [await readOne(ctx, model, id, scope, select)] : await fetchByIds(ctx, model, [id], ctx.db, scope);
  if (!row) throw new NotFound();
  const [rep] = await represent(ctx, model, [row], {
    mode: modeOf(params, select),
    base: base(req),
    select,
    excludeConfigContext: excludesConfigContext(params),
  });
  res.setHeader('ETag', etagOf(row));
  sendJson(res, 200, rep);
}

/** POST of one object or a list of them (all or none). */
async function createHandler(e: Endpoint, req: Request, res: Response): Promise<void> {
  const { ctx, model } = e;
  const identity = identityOf(res);
  const scope = requirePermission(ctx, model, identity, 'add');
  const body: unknown = req.body;
  const bulk = Array.isArray(body);
  if (!bulk && (body === undefined || body === null || typeof body !== 'object')) {
    if (body === undefined) throw new ValidationError(requiredErrors(model));
    throw notADict(body);
  }
  const items = bulk ? (body as unknown[]) : [body];
  await warmReferences(ctx, model, items);
  await runWrite(ctx, model, req, res, identity, (wctx) => createObjects(ctx, model, items, bulk, scope, wctx), respond(e, req));
}

/** PUT or PATCH of one object, under If-Match. */
async function updateHandler(e: Endpoint, req: Request, res: Response, partial: boolean): Promise<void> {
  const { ctx, model } = e;
  const identity = identityOf(res);
  const scope = requirePermission(ctx, model, identity, 'change');
  parseId(req.params.id);
  if (Array.isArray(req.body)) throw new ValidationError({ non_field_errors: ['Expected a dictionary, but got list. Use the list URL for bulk updates.'] });
  await warmReferences(ctx, model, [req.body]);
  await runWrite(ctx, model, req, res, identity, async (wctx) => {
    const existing = await lockOne(e, req, wctx, scope);
    const id = Number(existing.id);
    await capture(ctx, model, wctx, [existing]);
    const p = await prepare(ctx, model, req.body ?? {}, partial ? 'patch' : 'put', existing, wctx);
    await update(ctx, model, id, p, existing, wctx);
    await afterSave(model, [{ id, columns: p.columns, existing, body: (req.body ?? {}) as Row }], wctx);
    await checkScope(ctx, model, [id], scope, wctx.tx);
    return { status: 200, ids: [id], bulk: false, touched: { updated: [existing] } };
  }, respond(e, req));
}

/** PUT or PATCH of a list of objects by id (all or none). */
async function bulkUpdateHandler(e: Endpoint, req: Request, res: Response, partial: boolean): Promise<void> {
  const { ctx, model, table } = e;
  const identity = identityOf(res);
  const scope = requirePermission(ctx, model, identity, 'change');
  const items = bulkItems(req.body);
  await warmReferences(ctx, model, items);
  await runWrite(ctx, model, req, res, identity, async (wctx) => {
    const wanted = items.map((i) => Number(i.id));
    // locked in one order (the model's), so two bulk updates cannot deadlock each other
    const rows = await wctx.tx.query(sql`SELECT * FROM ${table} t WHERE t.id = ANY(${wanted}::bigint[]) AND ${scope} ORDER BY ${orderBy(ctx, model, null)} FOR UPDATE`);
    const byId = new Map(items.map((i) => [Number(i.id), i]));
    await capture(ctx, model, wctx, rows);
    for (const existing of rows) {
      const item = { ...byId.get(Number(existing.id))! };
      delete item.id;
      const p = await prepare(ctx, model, item, partial ? 'patch' : 'put', existing, wctx);
      await update(ctx, model, Number(existing.id), p, existing, wctx);
      await afterSave(model, [{ id: Number(existing.id), columns: p.columns, existing, body: item }], wctx);
    }
    const done = rows.map((r) => Number(r.id));
    await checkScope(ctx, model, done, scope, wctx.tx);
    return { status: 200, ids: done, bulk: true, touched: { updated: rows } };
  }, respond(e, req));
}

/** DELETE of one object: other services that PROTECT it are asked (and reserve it) first. */
async function destroyHandler(e: Endpoint, req: Request, res: Response): Promise<void> {
  const { ctx, model } = e;
  const identity = identityOf(res);
  const scope = requirePermission(ctx, model, identity, 'delete');
  parseId(req.params.id);
  if (req.body !== undefined) throw new ValidationError({ non_field_errors: ['A DELETE of one object takes no body.'] });
  const reserved = await checkRemoteProtected(ctx, model, () => inScope(ctx, model, [parseId(req.params.id)], scope));
  await decided(reserved, (gone) =>
    runWrite(ctx, model, req, res, identity, async (wctx) => {
      const existing = await lockOne(e, req, wctx, scope);
      await capture(ctx, model, wctx, [existing]);
      await remove(ctx, model, [Number(existing.id)], wctx);
      gone([existing]);
      return { status: 204, ids: [], bulk: false, touched: { deleted: [existing] } };
    }, respond(e, req)),
  );
}

/** DELETE of a list of objects by id (all or none). */
async function bulkDestroyHandler(e: Endpoint, req: Request, res: Response): Promise<void> {
  const { ctx, model, table } = e;
  const identity = identityOf(res);
  const scope = requirePermission(ctx, model, identity, 'delete');
  const items = bulkItems(req.body);
  const reserved = await checkRemoteProtected(ctx, model, () => inScope(ctx, model, items.map((i) => Number(i.id)), scope));
  await decided(reserved, (gone) =>
    runWrite(ctx, model, req, res, identity, async (wctx) => {
      const rows = await wctx.tx.query(sql`SELECT * FROM ${table} t WHERE t.id = ANY(${items.map((i) => Number(i.id))}::bigint[]) AND ${scope} ORDER BY t.id FOR UPDATE`);
      await capture(ctx, model, wctx, rows);
      await remove(ctx, model, rows.map((r) => Number(r.id)), wctx);
      gone(rows);
      return { status: 204, ids: [], bulk: true, touched: { deleted: rows } };
    }, respond(e, req)),
  );
}

/** OPTIONS: the model's metadata, with the write actions the caller may take. */
function optionsHandler(e: Endpoint, _req: Request, res: Response, detail: boolean): void {
  const { ctx, model } = e;
  const identity = identityOf(res);
  const may = (action: Action) => {
    if (model.readOnly) return false;
    if (identity.token && !identity.token.write_enabled) return false;
    return authorize(identity, model.label, action, ctx.settings).allowed;
  };
  res.json(optionsBody(model, { post: !detail && may('add'), put: may('change') }));
}

/**
 * A create's work inside its unit of work: every item validated (a bulk
 * create's errors listed, `{}` for good items), the unique rules of all of
 * them checked at once, the rows inserted, the model's create hooks run and
 * the caller's permitted scope checked. Also the end of an allocation
 * (`available-*`), once the allocated values are written into the items.
 */
export async function createObjects(ctx: ServiceContext, model: ModelDef, items: unknown[], bulk: boolean, scope: Sql, wctx: WriteContext): Promise<WriteResult> {
  // validate everything first: errors come back as a list with {} for good items
  const prepared: Prepared[] = [];
  const errors: Record<string, unknown>[] = [];
  const kept = wctx.importing ? await keptIds(ctx, model, items, wctx.tx) : null;
  for (const [i, item] of items.entries()) {
    try {
      const p = await prepare(ctx, model, item, 'create', null, wctx, { deferUnique: true });
      if (kept?.[i].error) throw ValidationError.field('id', kept[i].error!);
      if (kept?.[i].id !== undefined) p.columns.id = kept[i].id;
      if (wctx.importing && model.timestamps) keepCreated(p, item);
      prepared.push(p);
      errors.push({});
    } catch (err) {
      if (!(err instanceof ValidationError) || Array.isArray(err.errors)) throw err;
      errors.push(err.errors);
    }
  }
  // the unique rules of every prepared row at once (and against each other)
  const good = errors.flatMap((e, i) => (Object.keys(e).length ? [] : [i]));
  const clashes = await uniqueErrors(ctx, model, good.map((_, k) => prepared[k].unique ?? {}), null, wctx.tx);
  clashes.forEach((e, k) => Object.keys(e).length && (errors[good[k]] = e));
  if (errors.some((e) => Object.keys(e).length)) throw new ValidationError(bulk ? errors : errors[0]);
  const created = await insertMany(ctx, model, prepared, wctx.tx);
  if (kept?.some((k) => k.id !== undefined)) await advanceSequence(ctx, model, wctx.tx);
  await afterSave(model, created.map((id, i) => ({ id, columns: prepared[i].columns, existing: null, body: items[i] as Row })), wctx);
  await checkScope(ctx, model, created, scope, wctx.tx);
  return { status: 201, ids: created, bulk, touched: { created } };
}

/** An import's kept ids, per item: the id, or why it cannot be had (not an integer, taken). */
async function keptIds(ctx: ServiceContext, model: ModelDef, items: unknown[], tx: Tx): Promise<{ id?: number; error?: string }[]> {
  const given = items.map(keptIdOf);
  const ids = given.map((g) => (typeof g === 'number' ? g : undefined));
  const taken = await takenIds(ctx, model, ids, tx);
  return given.map((g, i) => (typeof g === 'object' ? { error: g.error } : taken[i] ? { error: taken[i]! } : { id: g }));
}

/**
 * Runs a delete and tells the services that reserved its objects how it
 * ended: committed (the rows it deleted, tombstoned there at once) or not.
 */
async function decided(reserved: Reserved, del: (gone: (rows: Row[]) => void) => Promise<void>): Promise<void> {
  let deleted: Row[] = [];
  try {
    await del((rows) => (deleted = rows));
  } catch (err) {
    await reserved.release();
    throw err;
  }
  await reserved.release(deleted.map((r) => ({ id: Number(r.id), version: Number(r._version ?? 1) })));
}

/** Rolls back and answers 403 when a write leaves the caller's permitted scope. */
async function checkScope(ctx: ServiceContext, model: ModelDef, ids: number[], scope: Sql, tx: Tx): Promise<void> {
  if (!ids.length || (scope.strings.length === 1 && scope.strings[0] === 'TRUE')) return;
  const [row] = await tx.query(sql`SELECT count(*) AS n FROM ${raw(ctx.db.table(model.table))} t WHERE t.id = ANY(${ids}::bigint[]) AND ${scope}`);
  if (Number(row.n) !== ids.length) throw new PermissionDenied();
}

function requiredErrors(model: ModelDef): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, field] of Object.entries(model.fields)) {
    if (field.required && !field.readOnly && field.default === undefined) out[name] = ['This field is required.'];
  }
  return Object.keys(out).length ? out : { non_field_errors: ['No data provided'] };
}

/** Bulk update/delete bodies: a list of objects that each carry an integer id. */
function bulkItems(body: unknown): Record<string, unknown>[] {
  if (!Array.isArray(body)) {
    throw new ValidationError({ non_field_errors: [`Expected a list of items but got type "${body === undefined || body === null ? 'dict' : Array.isArray(body) ? 'list' : typeof body === 'object' ? 'dict' : typeof body}".`] });
  }
  let bad = false;
  const errors = body.map((item) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      bad = true;
      return { non_field_errors: ['Invalid data. Expected a dictionary.'] };
    }
    const id = (item as Record<string, unknown>).id;
    if (id === undefined || id === null) {
      bad = true;
      return { id: ['This field is required.'] };
    }
    if (!(typeof id === 'number' || (typeof id === 'string' && /^\d+$/.test(id))) || !Number.isSafeInteger(Number(id)) || Number(id) < 0) {
      bad = true;
      return { id: ['A valid integer is required.'] };
    }
    return {};
  });
  if (bad) throw new ValidationError(errors);
  return body as Record<string, unknown>[];
}

/** Which of these objects exist within the caller's scope (what a delete would touch). */
async function inScope(ctx: ServiceContext, model: ModelDef, ids: number[], scope: Sql): Promise<number[]> {
  const rows = await ctx.db.query(sql`SELECT t.id FROM ${raw(ctx.db.table(model.table))} t WHERE t.id = ANY(${ids}::bigint[]) AND ${scope}`);
  return rows.map((r) => Number(r.id));
}

/** The query parameters without those named (a copy). */
function withoutParams(params: URLSearchParams, names: readonly string[]): URLSearchParams {
  const out = new URLSearchParams(params);
  for (const n of names) out.delete(n);
  return out;
}

/** A representation without one key, the others in their order. */
function withoutKey(rep: Row, key: string): Row {
  const { [key]: _dropped, ...rest } = rep;
  return rest;
}
