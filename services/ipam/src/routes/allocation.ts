import type { Express, Request, Response } from 'express';
import { Conflict, NotAuthenticated, NotFound, PermissionDenied, ValidationError, sendJson } from '@inventory/core';
import { sql, raw, type Sql } from '@inventory/filtering';
import {
  baseUrl,
  createObjects,
  fetchByIds,
  represent,
  identityOf,
  parseId,
  requirePermission,
  runWrite,
  warmReferences,
  notADict,
  type ModelDef,
  type Queryable,
  type Respond,
  type Row,
  type ServiceContext,
} from '@inventory/rest';

/** NetBox's answer when the free set cannot satisfy every item of an allocation (§4, step 6). */
export const INSUFFICIENT = 'Insufficient resources are available to satisfy the request';

/**
 * One `available-*` endpoint over integers: a parent (a VLAN group, an ASN
 * range) whose free values its child objects (VLANs, ASNs) are allocated
 * from. The free set is found in SQL; the endpoint says how to show a free
 * value and what an allocated child gets from its parent.
 */
export interface IntegerPool {
  /** Path below /api/ipam/, e.g. `vlan-groups/:id/available-vlans/`. */
  path: string;
  parent: ModelDef;
  child: ModelDef;
  /** NetBox's advisory-lock key of the endpoint (all allocations of the kind serialise on it). */
  lockKey: number;
  /** The first `limit` free values, ascending. */
  free: (q: Queryable, ctx: ServiceContext, parent: Row, limit: number) => Promise<number[]>;
  /** Free values as GET lists them. */
  show: (values: number[], parent: Row, ctx: ServiceContext, base: string) => Promise<Row[]>;
  /** The request serializer's checks of one POST item (types only; the model's rules come after allocation). */
  check?: (item: Row) => Record<string, string[]>;
  /** The item with the allocated value and the parent's fields written over the client's. */
  assign: (item: Row, value: number, parent: Row) => Row;
}

/** `limit` of a GET: absent, not an integer or negative → 50; 0 → 1000; capped at 1000. */
export function allocationLimit(raw: unknown): number {
  const text = typeof raw === 'string' ? raw : '';
  if (!/^\d+$/.test(text)) return 50;
  const n = Number(text);
  return n === 0 || n > 1000 ? 1000 : n;
}

/** The parent row, among those the caller may view; else 404. */
async function findParent(ctx: ServiceContext, pool: IntegerPool, req: Request, res: Response, q: Queryable, lock = false): Promise<Row> {
  let scope: Sql;
  try {
    scope = requirePermission(ctx, pool.parent, identityOf(res), 'view');
  } catch (err) {
    // NetBox looks the parent up in what the user may view: none of it is a 404, not a 403
    if (err instanceof PermissionDenied && !(err instanceof NotAuthenticated)) throw new NotFound();
    throw err;
  }
  const id = parseId(req.params.id);
  const [row] = await q.query(sql`SELECT * FROM ${raw(ctx.db.table(pool.parent.table))} t WHERE t.id = ${id} AND ${scope}${raw(lock ? ' FOR UPDATE' : '')}`);
  if (!row) throw new NotFound();
  return row;
}

/** GET lists free values; POST allocates one object (or a list), in the unit of work every write runs in. */
export function mountPool(app: Express, ctx: ServiceContext, pool: IntegerPool): void {
  const path = `/api/ipam/${pool.path}`;

  app.get(path, async (req, res) => {
    requirePermission(ctx, pool.child, identityOf(res), 'view');
    const parent = await findParent(ctx, pool, req, res, ctx.db);
    const values = await pool.free(ctx.db, ctx, parent, allocationLimit(req.query.limit));
    const base = baseUrl(req, ctx.settings.publicUrl);
    sendJson(res, 200, await pool.show(values, parent, ctx, base));
  });

  app.post(path, async (req, res) => {
    const identity = identityOf(res);
    const scope = requirePermission(ctx, pool.child, identity, 'add');
    await findParent(ctx, pool, req, res, ctx.db);
    const body: unknown = req.body;
    const bulk = Array.isArray(body);
    if (!bulk && (body === null || typeof body !== 'object')) throw notADict(body);
    const items = (bulk ? body : [body]) as unknown[];
    // the request serializer: a list of per-item errors, also for a single object
    const errors = items.map((item) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) return { non_field_errors: ['Invalid data. Expected a dictionary.'] };
      return pool.check?.(item as Row) ?? {};
    });
    if (errors.some((e) => Object.keys(e).length)) throw new ValidationError(errors);
    await warmReferences(ctx, pool.child, items);
    await runWrite(
      ctx,
      pool.child,
      req,
      res,
      identity,
      async (wctx) => {
        // every allocation of the kind waits for the one before it to commit, then sees what it took
        await wctx.tx.query(sql`SELECT pg_advisory_xact_lock(${pool.lockKey}::bigint)`);
        const parent = await findParent(ctx, pool, req, res, wctx.tx, true);
        const values = items.length ? await pool.free(wctx.tx, ctx, parent, items.length) : [];
        if (values.length < items.length) throw new Conflict(INSUFFICIENT);
        const allocated = items.map((item, i) => pool.assign(item as Row, values[i], parent));
        return createObjects(ctx, pool.child, allocated, bulk, scope, wctx);
      },
      respondCreated(ctx, pool.child, baseUrl(req, ctx.settings.publicUrl)),
    );
  });
}

/** 201 with the created objects as their change records show them (full form, no count annotations); a replayed key reads them again. */
function respondCreated(ctx: ServiceContext, model: ModelDef, base: string): Respond {
  return async ({ ids, bulk }, written) => {
    const reps = written ? ids.map((id) => written.reps.get(id)!) : await represent(ctx, model, await fetchByIds(ctx, model, ids), 'full', base);
    return { headers: {}, body: JSON.stringify(bulk ? reps : (reps[0] ?? null)) };
  };
}
