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
  mountRoute,
  notADict,
  schemaName,
  type ModelDef,
  type Queryable,
  type Respond,
  type RouteHandler,
  type Row,
  type ServiceContext,
} from '@inventory/rest';

/** NetBox's answer when the free set cannot satisfy every item of an allocation (§4, step 6). */
export const INSUFFICIENT = 'Insufficient resources are available to satisfy the request';

/**
 * One `available-*` endpoint (spec §4): a parent (a prefix, an IP range, a
 * VLAN group, an ASN range) whose free values its child objects (prefixes,
 * IP addresses, VLANs, ASNs) are allocated from. The free set is found in
 * SQL; the endpoint says how GET lists it, what its request serializer
 * checks, and how an item gets its allocated value and the parent's fields.
 */
export interface Allocator {
  /** Path below /api/ipam/, e.g. `prefixes/:id/available-ips/`. */
  path: string;
  /** NetBox's schema of a listed free value (`AvailableIP`), for the OpenAPI document. */
  free: FreeSchema;
  parent: ModelDef;
  child: ModelDef;
  /** NetBox's advisory-lock key of the endpoint (all allocations of the kind serialise on it). */
  lockKey: number;
  /**
   * Lock the parent's row too (`FOR UPDATE`): a VLAN group's or an ASN
   * range's bounds may not change under an allocation. A prefix is not
   * locked: its own writes take the prefix lock first, then rows, and an
   * allocation must not take them in the other order.
   */
  lockParent?: boolean;
  /** GET: the free values as NetBox lists them (a plain array, ascending). */
  list: (q: Queryable, ctx: ServiceContext, parent: Row, req: Request, base: string) => Promise<unknown[]>;
  /** The request serializer's checks of one POST item (the model's rules come after allocation). */
  check?: (item: Row, parent: Row) => Record<string, unknown>;
  /**
   * The items with their allocated values (and the parent's fields) written
   * over the client's, in request order; null when the free set cannot
   * satisfy every item (409, nothing created).
   */
  allocate: (q: Queryable, ctx: ServiceContext, parent: Row, items: Row[]) => Promise<Row[] | null>;
}

/** A listed free value's component schema. */
export interface FreeSchema {
  name: string;
  schema: Record<string, unknown>;
}

/**
 * An allocator over integers (VIDs, ASNs): the first free values in order,
 * one per item.
 */
export interface IntegerPool {
  /** Path below /api/ipam/, e.g. `vlan-groups/:id/available-vlans/`. */
  path: string;
  /** Named `listed`: `free` is the pool's query. */
  listed: FreeSchema;
  parent: ModelDef;
  child: ModelDef;
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

/** An integer pool as an allocator: GET lists `limit` free values; POST takes one per item, in order. */
export function integerAllocator(pool: IntegerPool): Allocator {
  const check = pool.check;
  return {
    path: pool.path,
    free: pool.listed,
    parent: pool.parent,
    child: pool.child,
    lockKey: pool.lockKey,
    lockParent: true,
    list: async (q, ctx, parent, req, base) => pool.show(await pool.free(q, ctx, parent, allocationLimit(req.query.limit)), parent, ctx, base),
    check: check ? (item) => check(item) : undefined,
    async allocate(q, ctx, parent, items) {
      const values = items.length ? await pool.free(q, ctx, parent, items.length) : [];
      if (values.length < items.length) return null;
      return items.map((item, i) => pool.assign(item, values[i], parent));
    },
  };
}

/** The parent row, among those the caller may view; else 404. */
async function findParent(ctx: ServiceContext, a: Allocator, req: Request, res: Response, q: Queryable, lock = false): Promise<Row> {
  let scope: Sql;
  try {
    scope = requirePermission(ctx, a.parent, identityOf(res), 'view');
  } catch (err) {
    // NetBox looks the parent up in what the user may view: none of it is a 404, not a 403
    if (err instanceof PermissionDenied && !(err instanceof NotAuthenticated)) throw new NotFound();
    throw err;
  }
  const id = parseId(req.params.id);
  const [row] = await q.query(sql`SELECT * FROM ${raw(ctx.db.table(a.parent.table))} t WHERE t.id = ${id} AND ${scope}${raw(lock ? ' FOR UPDATE' : '')}`);
  if (!row) throw new NotFound();
  return row;
}

/** GET: the free values the parent still has, as `a.list` shows them. */
function listFree(ctx: ServiceContext, a: Allocator): RouteHandler {
  return async (req, res) => {
    requirePermission(ctx, a.child, identityOf(res), 'view');
    const parent = await findParent(ctx, a, req, res, ctx.db);
    sendJson(res, 200, await a.list(ctx.db, ctx, parent, req, baseUrl(req, ctx.settings.publicUrl)));
  };
}

/** POST: one object (or a list) allocated from the parent, in the unit of work every write runs in. */
function allocate(ctx: ServiceContext, a: Allocator): RouteHandler {
  return async (req, res) => {
    const identity = identityOf(res);
    const scope = requirePermission(ctx, a.child, identity, 'add');
    const parent = await findParent(ctx, a, req, res, ctx.db);
    const body: unknown = req.body;
    const bulk = Array.isArray(body);
    if (!bulk && (body === null || typeof body !== 'object')) throw notADict(body);
    const items = (bulk ? body : [body]) as unknown[];
    // the request serializer: a list of per-item errors, also for a single object
    const errors = items.map((item) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) return { non_field_errors: ['Invalid data. Expected a dictionary.'] };
      return a.check?.(item as Row, parent) ?? {};
    });
    if (errors.some((e) => Object.keys(e).length)) throw new ValidationError(errors);
    await warmReferences(ctx, a.child, items);
    await runWrite(
      ctx,
      a.child,
      req,
      res,
      identity,
      async (wctx) => {
        // every allocation of the kind waits for the one before it to commit, then sees what it took
        await wctx.tx.query(sql`SELECT pg_advisory_xact_lock(${a.lockKey}::bigint)`);
        const current = await findParent(ctx, a, req, res, wctx.tx, a.lockParent);
        const allocated = await a.allocate(wctx.tx, ctx, current, items as Row[]);
        if (allocated === null) throw new Conflict(INSUFFICIENT);
        return createObjects(ctx, a.child, allocated, bulk, scope, wctx);
      },
      respondCreated(ctx, a.child, baseUrl(req, ctx.settings.publicUrl)),
    );
  };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const oneOrMany = (name: string) => ({ oneOf: [ref(name), { type: 'array', items: ref(name) }] });

/** GET lists free values; POST allocates one object (or a list); both documented from `a.free`. */
export function mountAllocator(app: Express, ctx: ServiceContext, a: Allocator): void {
  const child = schemaName(a.child);
  mountRoute(app, {
    path: `/api/ipam/${a.path}`,
    idOf: a.parent.verboseName,
    schemas: { [a.free.name]: a.free.schema },
    operations: {
      get: {
        handler: listFree(ctx, a),
        query: [{ name: 'limit', in: 'query', required: false, description: 'How many to list (default 50, 0 or over 1000: 1000).', schema: { type: 'integer' } }],
        response: { type: 'array', items: ref(a.free.name) },
      },
      post: {
        handler: allocate(ctx, a),
        request: oneOrMany(`${child}Request`),
        status: 201,
        response: oneOrMany(child),
      },
    },
  });
}

/** An integer pool's endpoint (available-vlans, available-asns). */
export function mountPool(app: Express, ctx: ServiceContext, pool: IntegerPool): void {
  mountAllocator(app, ctx, integerAllocator(pool));
}

/** 201 with the created objects as their change records show them (full form, no count annotations); a replayed key reads them again. */
function respondCreated(ctx: ServiceContext, model: ModelDef, base: string): Respond {
  return async ({ ids, bulk }, written) => {
    const reps = written ? ids.map((id) => written.reps.get(id)!) : await represent(ctx, model, await fetchByIds(ctx, model, ids), { mode: 'full', base });
    return { headers: {}, body: JSON.stringify(bulk ? reps : (reps[0] ?? null)) };
  };
}
