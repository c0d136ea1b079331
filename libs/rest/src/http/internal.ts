import type { Express } from 'express';
import { ValidationError } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { serviceAsyncApi } from './asyncapi';
import { TEXT_TYPES, type ModelDef, areaOf, type ServiceContext, TAGGED_ITEM_TABLE } from '../model';
import { filtersFor, keyResolver, identityOf, nestedFor } from '../read';
import { rewriteCustomFieldData, type CustomFieldDataOp, protectingObjects, resolveLocal } from '../write';
import { COMMON_SCHEMAS, modelOpenApi } from './openapi';
import { mountedRoutes } from './routes';
import { routeOpenApi } from './routes-openapi';
import { recordsFor, snapshotPage, declaredReferences } from '../references';
import { release, reserveAndCheck } from '../projections';

/**
 * Endpoints other services call (service identities only; see the identity
 * middleware): resolve references, nested representations, keys, counts,
 * schema. Their bodies are checked like any client's: a malformed call is a
 * 400, never a 500.
 */

/** Columns another service may look objects up by: the id, slug, name and fields declared unique. */
export function lookupKeys(model: ModelDef): Set<string> {
  const keys = new Set(['id']);
  for (const [name, field] of Object.entries(model.fields)) {
    if (!TEXT_TYPES.has(field.type) || field.writeOnly) continue;
    if (field.unique || name === 'slug' || name === 'name') keys.add(name);
  }
  return keys;
}

type Body = Record<string, unknown>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function body(req: { body?: unknown }): Body {
  const b = req.body;
  if (b === undefined) return {};
  if (b === null || typeof b !== 'object' || Array.isArray(b)) throw new ValidationError({ non_field_errors: ['Expected a JSON object.'] });
  return b as Body;
}

function list(b: Body, name: string): unknown[] {
  const v = b[name] ?? [];
  if (!Array.isArray(v)) throw new ValidationError({ [name]: ['Expected a list.'] });
  return v;
}

function ids(b: Body, name: string): number[] {
  const out = list(b, name).map(Number);
  if (out.some((n) => !Number.isSafeInteger(n) || n < 0)) throw new ValidationError({ [name]: ['Expected a list of ids.'] });
  return out;
}

function strings(b: Body, name: string): string[] {
  return list(b, name).map(String);
}

/** A model of this service named by a call; 400 for any other. */
function modelNamed(ctx: ServiceContext, label: unknown): ModelDef {
  const m = ctx.models.get(String(label));
  if (!m) throw new ValidationError({ model: [`Unknown model ${String(label)}`] });
  return m;
}

export function mountInternal(app: Express, ctx: ServiceContext): void {
  mountReferenceEndpoints(app, ctx);
  mountDeleteEndpoints(app, ctx);
  mountExtrasEndpoints(app, ctx);
  mountDocumentEndpoints(app, ctx);
}

/** What referring services ask of this one's objects: resolve references, their records and snapshots, keys, counts; and what this service reads (its readers, their state). */
function mountReferenceEndpoints(app: Express, ctx: ServiceContext): void {
  const model = (label: unknown) => modelNamed(ctx, label);
  app.post('/internal/resolve', async (req, res) => {
    const b = body(req);
    const m = model(b.model);
    const results = await resolveLocal(ctx, m, list(b, 'refs'));
    // what the caller keeps in its projection of the model, so the next reference to them stays local
    const found = [...new Set(results.flatMap((r) => ('id' in r ? [r.id] : [])))];
    const rows = found.length ? await ctx.db.query(sql`SELECT * FROM ${raw(ctx.db.table(m.table))} WHERE id = ANY(${found}::bigint[])`) : [];
    res.json({ results, records: await recordsFor(ctx, m, rows) });
  });
  app.get('/internal/references', (_req, res) => {
    // `reads`: the models whose events this service applies to what it serves (their writers wait for its confirmation)
    res.json({ references: declaredReferences(ctx), reads: ctx.consistency?.reads() ?? [] });
  });
  // how far behind its sources each reader of this service is (the gateway's /api/status/ shows it)
  app.get('/internal/consistency', async (_req, res) => {
    res.json({ readers: (await ctx.consistency?.status()) ?? {} });
  });
  app.post('/internal/summary', async (req, res) => {
    const m = model(body(req).model);
    const [row] = await ctx.db.query(sql`SELECT count(*)::int AS n FROM ${raw(ctx.db.table(m.table))}`);
    res.json({ count: Number(row.n) });
  });
  app.post('/internal/snapshot', async (req, res) => {
    const b = body(req);
    const after = Number(b.after ?? 0);
    const limit = Number(b.limit ?? 1000);
    if (!Number.isSafeInteger(after) || after < 0) throw new ValidationError({ after: ['Expected an id.'] });
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 5000) throw new ValidationError({ limit: ['Expected 1 to 5000.'] });
    res.json(await snapshotPage(ctx, model(b.model), after, limit));
  });
  app.post('/internal/nested', async (req, res) => {
    const b = body(req);
    // the same answer a local relation gets (nestedFor): plain rows, no count annotations
    const objects = await nestedFor(ctx, model(b.model).label, ids(b, 'ids'), String(b.base ?? ''));
    res.json({ objects: [...objects.values()] });
  });
  app.post('/internal/keys', async (req, res) => {
    const b = body(req);
    const m = model(b.model);
    const key = String(b.key);
    if (!lookupKeys(m).has(key)) throw new ValidationError({ key: [`${m.label} cannot be looked up by ${key}.`] });
    const values = strings(b, 'values');
    if (key === 'id' && values.some((v) => !/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)))) throw new ValidationError({ values: ['Expected ids.'] });
    const found = await keyResolver(ctx, m.label, key, !!b.tree)(values);
    res.json({ ids: Object.fromEntries(found) });
  });
}

/** A delete of another service's objects: the dependents here that PROTECT them (reserving them while the owner decides), and the owner's word. */
function mountDeleteEndpoints(app: Express, ctx: ServiceContext): void {
  app.post('/internal/dependents', async (req, res) => {
    const b = body(req);
    const label = String(b.model);
    const targets = ids(b, 'ids');
    if (b.token === undefined) return void res.json({ objects: await protectingObjects(ctx, label, targets) });
    // the owner is about to delete them: reserved here until it decides, unless something here keeps them
    const token = String(b.token);
    if (!UUID.test(token)) throw new ValidationError({ token: ['Expected a UUID.'] });
    res.json({ objects: await reserveAndCheck(ctx, label, targets, token, (q) => protectingObjects(ctx, label, targets, q)) });
  });
  app.post('/internal/release', async (req, res) => {
    const b = body(req);
    const token = String(b.token);
    if (!UUID.test(token)) throw new ValidationError({ token: ['Expected a UUID.'] });
    const deleted = list(b, 'deleted').map((d) => ({ id: Number((d as Body)?.id), version: Number((d as Body)?.version) }));
    if (deleted.some((d) => !Number.isSafeInteger(d.id) || !Number.isSafeInteger(d.version))) throw new ValidationError({ deleted: ['Expected ids and versions.'] });
    await release(ctx, String(b.model), token, deleted);
    res.json({ released: true });
  });
}

/** What extras asks of every service: tag use and counts, and stored custom-field values rewritten after a definition changed. */
function mountExtrasEndpoints(app: Express, ctx: ServiceContext): void {
  app.post('/internal/tags/counts', async (req, res) => {
    const rows = await ctx.db.query(
      sql`SELECT tag_id, count(*) AS n FROM ${raw(ctx.db.table(TAGGED_ITEM_TABLE))} WHERE tag_id = ANY(${ids(body(req), 'ids')}::bigint[]) GROUP BY 1`,
    );
    res.json({ counts: Object.fromEntries(rows.map((r) => [String(r.tag_id), Number(r.n)])) });
  });
  app.post('/internal/custom-fields/data', async (req, res) => {
    const b = body(req);
    const types = strings(b, 'content_types');
    // a definition changed: this process stops rendering the old one now (every process does on its event)
    ctx.extras.invalidate();
    const op = { op: String(b.op), name: String(b.name), default: b.default, new_name: typeof b.new_name === 'string' ? b.new_name : undefined } as CustomFieldDataOp;
    let updated = 0;
    for (const m of ctx.models.values()) {
      if (!m.customFields || !types.includes(m.label)) continue;
      updated += await rewriteCustomFieldData(ctx, m, op, identityOf(res));
    }
    res.json({ updated });
  });
  app.post('/internal/tags/used', async (req, res) => {
    const rows = await ctx.db.query(
      sql`SELECT DISTINCT tag_id FROM ${raw(ctx.db.table(TAGGED_ITEM_TABLE))} WHERE content_type = ANY(${strings(body(req), 'content_types')}::text[])`,
    );
    res.json({ ids: rows.map((r) => Number(r.tag_id)) });
  });
}

/** This service's part of the OpenAPI and AsyncAPI documents the gateway merges. */
function mountDocumentEndpoints(app: Express, ctx: ServiceContext): void {
  app.get('/internal/openapi', async (_req, res) => {
    const paths: Record<string, unknown> = {};
    const schemas: Record<string, unknown> = { ...COMMON_SCHEMAS };
    for (const m of ctx.models.values()) {
      const defs = [
        ...filtersFor(ctx, m, m.customFields ? await ctx.extras.customFields(m.label) : []),
        // filters that depend on the caller are documented as an anonymous caller has them
        ...(m.callerFilters?.({ user: null, token: null, permissions: [] }) ?? []),
      ];
      const doc = modelOpenApi(m, areaOf(m, ctx), ctx.models, defs);
      Object.assign(paths, doc.paths);
      Object.assign(schemas, doc.schemas);
    }
    // the service's own routes, as mounted (mountRoute)
    const own = routeOpenApi(mountedRoutes(app));
    Object.assign(paths, own.paths);
    Object.assign(schemas, own.schemas);
    res.json({ paths, components: { schemas } });
  });
  // the change events' channels and messages; `data` is the same component schema as above (filters play no part in it)
  app.get('/internal/asyncapi', (_req, res) => {
    const schemas: Record<string, unknown> = {};
    for (const m of ctx.models.values()) Object.assign(schemas, modelOpenApi(m, areaOf(m, ctx), ctx.models, []).schemas);
    res.json(serviceAsyncApi(ctx.models.values(), schemas));
  });
}
