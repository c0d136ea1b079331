import type { Express, Request, Response } from 'express';
import { MethodNotAllowed, NotFound, PermissionDenied, NotAuthenticated, ValidationError, currentContext, sendJson } from '@inventory/core';
import { type Identity, type Action, authorize } from '@inventory/auth';
import { buildFilter, sql, raw, and, type Sql } from '@inventory/filtering';
import { constraintSql } from './constraints';
import { cachedFilters } from './filters';
import type { ModelDef } from './model';
import { optionsBody } from './options';
import { pageLinks, parsePage } from './pagination';
import { fetchByIds, fetchPage, orderBy } from './query';
import { areaOf, type ServiceContext } from './registry';
import { represent, type Mode } from './serialize';
import type { Change, Row, WriteContext } from './types';
import { baseUrl } from './urls';
import { notADict, prepare, insert, update, remove } from './write';
import type { Tx } from './db';

export function identityOf(res: Response): Identity {
  return res.locals.identity as Identity;
}

/** Model-level permission for the request, or a 403 with NetBox's text. */
export function requirePermission(ctx: ServiceContext, model: ModelDef, identity: Identity, action: Action): Sql {
  if (action !== 'view' && identity.token && !identity.token.write_enabled) throw new PermissionDenied();
  const auth = authorize(identity, model.label, action, ctx.settings);
  if (!auth.allowed) throw identity.user ? new PermissionDenied() : new NotAuthenticated();
  return constraintSql(ctx, model, auth.constraints);
}

function wantsBrief(params: URLSearchParams): boolean {
  const v = params.get('brief');
  return v !== null && v !== ''; // any non-empty value, as NetBox (quirk Q1)
}

function parseId(raw: string): number {
  if (!/^\d+$/.test(raw)) throw new NotFound();
  return Number(raw);
}

function requestUrl(req: Request, base: string): URL {
  return new URL(req.originalUrl, base);
}

/** Rolls back and answers 403 when a write leaves the caller's permitted scope. */
async function checkScope(ctx: ServiceContext, model: ModelDef, ids: number[], scope: Sql, tx: Tx): Promise<void> {
  if (!ids.length || (scope.strings.length === 1 && scope.strings[0] === 'TRUE')) return;
  const [row] = await tx.query(sql`SELECT count(*) AS n FROM ${raw(ctx.db.table(model.table))} t WHERE t.id = ANY(${ids}::bigint[]) AND ${scope}`);
  if (Number(row.n) !== ids.length) throw new PermissionDenied();
}

function writeContext(ctx: ServiceContext, tx: Tx, identity: Identity): WriteContext {
  return { tx, identity, requestId: currentContext()?.requestId ?? '', service: ctx, memo: new Map() };
}

/** Reads objects back for the response, in the given order. */
async function respondObjects(ctx: ServiceContext, model: ModelDef, ids: number[], base: string): Promise<Row[]> {
  const rows = await fetchByIds(ctx, model, ids);
  return represent(ctx, model, rows, 'full', base);
}

/** The list, detail, bulk and OPTIONS routes of one model, all from its declaration. */
export function mountModel(app: Express, ctx: ServiceContext, model: ModelDef): void {
  const listPath = `/api/${areaOf(model, ctx)}/${model.endpoint}/`;
  const detailPath = `${listPath}:id/`;
  const base = (req: Request) => baseUrl(req, ctx.settings.publicUrl);
  const table = raw(ctx.db.table(model.table));
  /**
   * Rows as they are now, inside the write's transaction (the "after" of a
   * change); read only when the model has an afterCommit hook to hand them to.
   */
  const current = (tx: Tx, ids: number[]) =>
    ids.length && model.hooks.afterCommit ? tx.query(sql`SELECT * FROM ${table} WHERE id = ANY(${ids}::bigint[]) ORDER BY id`) : Promise.resolve([]);
  const committed = async (changes: Change[]) => {
    if (model.hooks.afterCommit && changes.length) await model.hooks.afterCommit(ctx, changes);
  };

  async function list(req: Request, res: Response) {
    const identity = identityOf(res);
    const scope = requirePermission(ctx, model, identity, 'view');
    const url = requestUrl(req, base(req));
    const params = url.searchParams;
    const defs = cachedFilters(ctx, model, model.customFields ? await ctx.extras.customFields(model.label) : []);
    const filter = await buildFilter(defs, params, { strict: ctx.settings.strictFiltering });
    if (filter.ignored.length) res.setHeader('X-Ignored-Parameters', filter.ignored.join(','));
    const page = parsePage(params, ctx.settings.paginateCount, ctx.settings.maxPageSize);
    const { rows, count } = await fetchPage(ctx, model, {
      where: and([filter.where, scope]),
      order: orderBy(ctx, model, params.get('ordering')),
      limit: page.limit,
      offset: page.offset,
    });
    const mode: Mode = wantsBrief(params) ? 'brief' : 'full';
    const results = await represent(ctx, model, rows, mode, base(req));
    const links = pageLinks(url, page, count);
    sendJson(res, 200, { count, next: links.next, previous: links.previous, results });
  }

  async function retrieve(req: Request, res: Response) {
    const id = parseId(String(req.params.id));
    const scope = requirePermission(ctx, model, identityOf(res), 'view');
    const [row] = await fetchByIds(ctx, model, [id], ctx.db, scope);
    if (!row) throw new NotFound();
    const params = requestUrl(req, base(req)).searchParams;
    const [rep] = await represent(ctx, model, [row], wantsBrief(params) ? 'brief' : 'full', base(req));
    sendJson(res, 200, rep);
  }

  async function create(req: Request, res: Response) {
    const identity = identityOf(res);
    const scope = requirePermission(ctx, model, identity, 'add');
    const body: unknown = req.body;
    const bulk = Array.isArray(body);
    const items = bulk ? (body as unknown[]) : [body];
    if (!bulk && (body === undefined || body === null || typeof body !== 'object')) {
      if (body === undefined) throw new ValidationError(requiredErrors(model));
      throw notADict(body);
    }
    let changes: Change[] = [];
    const ids = await ctx.db.transaction(async (tx) => {
      const wctx = writeContext(ctx, tx, identity);
      // validate everything first: errors come back as a list with {} for good items
      const prepared = [];
      const errors: Record<string, unknown>[] = [];
      let failed = false;
      for (const item of items) {
        try {
          prepared.push(await prepare(ctx, model, item, 'create', null, wctx));
          errors.push({});
        } catch (err) {
          if (!(err instanceof ValidationError) || Array.isArray(err.errors)) throw err;
          failed = true;
          errors.push(err.errors);
        }
      }
      if (failed) throw new ValidationError(bulk ? errors : errors[0]);
      const created: number[] = [];
      for (const [i, p] of prepared.entries()) {
        try {
          created.push(await insert(ctx, model, p, tx));
        } catch (err) {
          if (!bulk || !(err instanceof ValidationError) || Array.isArray(err.errors)) throw err;
          throw new ValidationError(items.map((_, j) => (j === i ? (err.errors as Record<string, unknown>) : {})));
        }
      }
      await checkScope(ctx, model, created, scope, tx);
      changes = (await current(tx, created)).map((after) => ({ before: null, after }));
      return created;
    });
    await committed(changes);
    const out = await respondObjects(ctx, model, ids, base(req));
    if (!bulk) res.setHeader('Location', String(out[0].url));
    sendJson(res, 201, bulk ? out : out[0]);
  }

  async function updateOne(req: Request, res: Response, partial: boolean) {
    const id = parseId(String(req.params.id));
    const identity = identityOf(res);
    const scope = requirePermission(ctx, model, identity, 'change');
    if (Array.isArray(req.body)) throw new ValidationError({ non_field_errors: ['Expected a dictionary, but got list. Use the list URL for bulk updates.'] });
    const changes = await ctx.db.transaction(async (tx) => {
      const [existing] = await tx.query(sql`SELECT * FROM ${table} t WHERE t.id = ${id} AND ${scope} FOR UPDATE`);
      if (!existing) throw new NotFound();
      const p = await prepare(ctx, model, req.body ?? {}, partial ? 'patch' : 'put', existing, writeContext(ctx, tx, identity));
      await update(ctx, model, id, p, existing, tx);
      await checkScope(ctx, model, [id], scope, tx);
      return (await current(tx, [id])).map((after) => ({ before: existing, after }));
    });
    await committed(changes);
    const [rep] = await respondObjects(ctx, model, [id], base(req));
    sendJson(res, 200, rep);
  }

  async function bulkUpdate(req: Request, res: Response, partial: boolean) {
    const identity = identityOf(res);
    const scope = requirePermission(ctx, model, identity, 'change');
    const items = bulkItems(req.body);
    let changes: Change[] = [];
    const ids = await ctx.db.transaction(async (tx) => {
      const wanted = items.map((i) => Number(i.id));
      const rows = await tx.query(
        sql`SELECT * FROM ${raw(ctx.db.table(model.table))} t WHERE t.id = ANY(${wanted}::bigint[]) AND ${scope} ORDER BY ${orderBy(ctx, model, null)} FOR UPDATE`,
      );
      const byId = new Map(items.map((i) => [Number(i.id), i]));
      const wctx = writeContext(ctx, tx, identity);
      for (const existing of rows) {
        const item = { ...byId.get(Number(existing.id))! };
        delete item.id;
        const p = await prepare(ctx, model, item, partial ? 'patch' : 'put', existing, wctx);
        await update(ctx, model, Number(existing.id), p, existing, tx);
      }
      const done = rows.map((r) => Number(r.id));
      await checkScope(ctx, model, done, scope, tx);
      const before = new Map(rows.map((r) => [Number(r.id), r]));
      changes = (await current(tx, done)).map((after) => ({ before: before.get(Number(after.id)) ?? null, after }));
      return done;
    });
    await committed(changes);
    sendJson(res, 200, await respondObjects(ctx, model, ids, base(req)));
  }

  async function destroyOne(req: Request, res: Response) {
    const id = parseId(String(req.params.id));
    const identity = identityOf(res);
    const scope = requirePermission(ctx, model, identity, 'delete');
    const changes = await ctx.db.transaction(async (tx) => {
      const [existing] = await tx.query(sql`SELECT * FROM ${table} t WHERE t.id = ${id} AND ${scope} FOR UPDATE`);
      if (!existing) throw new NotFound();
      await remove(ctx, model, [id], writeContext(ctx, tx, identity));
      return [{ before: existing, after: null }];
    });
    await committed(changes);
    res.status(204).end();
  }

  async function bulkDestroy(req: Request, res: Response) {
    const identity = identityOf(res);
    const scope = requirePermission(ctx, model, identity, 'delete');
    const items = bulkItems(req.body);
    const changes = await ctx.db.transaction(async (tx) => {
      const rows = await tx.query(
        sql`SELECT * FROM ${table} t WHERE t.id = ANY(${items.map((i) => Number(i.id))}::bigint[]) AND ${scope} FOR UPDATE`,
      );
      await remove(ctx, model, rows.map((r) => Number(r.id)), writeContext(ctx, tx, identity));
      return rows.map((before) => ({ before, after: null }));
    });
    await committed(changes);
    res.status(204).end();
  }

  function options(_req: Request, res: Response, detail: boolean) {
    const identity = identityOf(res);
    const may = (action: Action) => {
      if (model.readOnly) return false;
      if (identity.token && !identity.token.write_enabled) return false;
      return authorize(identity, model.label, action, ctx.settings).allowed;
    };
    res.json(optionsBody(model, { post: !detail && may('add'), put: may('change') }));
  }

  const readOnly = model.readOnly;
  const listAllow = readOnly ? 'GET, HEAD, OPTIONS' : 'GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS';
  const detailAllow = readOnly ? 'GET, HEAD, OPTIONS' : 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS';
  app.all(listPath, async (req, res) => {
    res.setHeader('Allow', listAllow);
    switch (req.method) {
      case 'GET':
      case 'HEAD':
        return list(req, res);
      case 'OPTIONS':
        return options(req, res, false);
    }
    if (readOnly) throw new MethodNotAllowed(req.method);
    switch (req.method) {
      case 'POST':
        return create(req, res);
      case 'PUT':
        return bulkUpdate(req, res, false);
      case 'PATCH':
        return bulkUpdate(req, res, true);
      case 'DELETE':
        return bulkDestroy(req, res);
      default:
        throw new MethodNotAllowed(req.method);
    }
  });
  app.all(detailPath, async (req, res) => {
    res.setHeader('Allow', detailAllow);
    switch (req.method) {
      case 'GET':
      case 'HEAD':
        return retrieve(req, res);
      case 'OPTIONS':
        return options(req, res, true);
    }
    if (readOnly) throw new MethodNotAllowed(req.method);
    switch (req.method) {
      case 'PUT':
        return updateOne(req, res, false);
      case 'PATCH':
        return updateOne(req, res, true);
      case 'DELETE':
        if (req.body !== undefined) throw new ValidationError({ non_field_errors: ['A DELETE of one object takes no body.'] });
        return destroyOne(req, res);
      default:
        throw new MethodNotAllowed(req.method);
    }
  });
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
    if (!(typeof id === 'number' && Number.isInteger(id)) && !(typeof id === 'string' && /^\d+$/.test(id))) {
      bad = true;
      return { id: ['A valid integer is required.'] };
    }
    return {};
  });
  if (bad) throw new ValidationError(errors);
  return body as Record<string, unknown>[];
}
