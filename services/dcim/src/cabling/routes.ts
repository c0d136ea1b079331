import type { Express, Request, Response } from 'express';
import { NotFound, ValidationError, sendJson } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import {
  baseUrl,
  fetchByIds,
  identityOf,
  mountRoute,
  objectUrl,
  parseId,
  represent,
  requirePermission,
  type ModelDef,
  type Queryable,
  type RouteDecl,
  type RouteHandler,
  type Row,
  type ServiceContext,
} from '@inventory/rest';
import { CABLE_PATH, TRACE_SEGMENT, ref } from './schemas';
import { nestedNodes } from './cabled';
import { TERMINATION_TABLES, WIRELESS_LINK, destinationsOf, node, parseNode, pathsByIds, pathsThrough, type PathNode } from './paths';

/**
 * dcim's own read endpoints over cable paths (NetBox's PathEndpointMixin
 * `trace`, PassThroughPortMixin `paths`, ConnectedDeviceViewSet), served
 * from the stored paths: a fixed number of statements per hop kind, none
 * per cable walked.
 */
export function cablingRoutes(app: Express, ctx: ServiceContext): void {
  for (const label of ['dcim.consoleport', 'dcim.consoleserverport', 'dcim.powerport', 'dcim.poweroutlet', 'dcim.interface', 'dcim.powerfeed']) {
    const model = ctx.models.get(label);
    if (!model) continue;
    mountRoute(app, {
      path: `/api/dcim/${model.endpoint}/:id/trace/`,
      idOf: model.verboseName,
      operations: {
        get: {
          handler: (req, res) => trace(ctx, model, req, res),
          summary: 'Trace a complete cable path and return each segment as a three-tuple of (termination, cable, termination).',
          response: { type: 'array', items: TRACE_SEGMENT },
          operationId: `dcim_${model.endpoint.replace(/-/g, '_')}_trace_retrieve`,
        },
      },
    });
  }
  for (const label of ['dcim.frontport', 'dcim.rearport']) {
    const model = ctx.models.get(label);
    if (model) mountRoute(app, pathsRoute(`/api/dcim/${model.endpoint}/:id/paths/`, model.verboseName, (req, res) => paths(ctx, model, req, res)));
  }
  mountRoute(app, {
    path: '/api/dcim/connected-device/',
    operations: {
      get: {
        handler: (req, res) => connectedDevice(ctx, req, res),
        summary: 'The device connected to the given interface of the given peer device.',
        query: ['peer_device', 'peer_interface'].map((name) => ({ name, in: 'query', required: true, schema: { type: 'string' } })),
        response: ref('Device'),
        operationId: 'dcim_connected_device_list',
      },
    },
  });
}

/** A pass-through's `paths/` (front and rear ports, circuit terminations): every cable path through it. */
export function pathsRoute(path: string, idOf: string, handler: RouteHandler): RouteDecl {
  return {
    path,
    idOf,
    schemas: { CablePath: CABLE_PATH },
    operations: {
      get: {
        handler,
        summary: 'Return all CablePaths which traverse a given pass-through port.',
        response: { type: 'array', items: ref('CablePath') },
        operationId: `${path.split('/')[2]}_${path.split('/')[3].replace(/-/g, '_')}_paths_retrieve`,
      },
    },
  };
}

/** The object the path names, within what the caller may view; 404 otherwise. */
async function visible(ctx: ServiceContext, model: ModelDef, req: Request, res: Response): Promise<Row> {
  const id = parseId(req.params.id);
  const scope = requirePermission(ctx, model, identityOf(res), 'view');
  const [row] = await ctx.db.query(sql`SELECT * FROM ${raw(ctx.db.table(model.table))} t WHERE t.id = ${id} AND ${scope}`);
  if (!row) throw new NotFound();
  return row;
}

/** NetBox's TracedCableSerializer: choice values plain. */
async function tracedCables(ctx: ServiceContext, ids: number[], base: string, q: Queryable): Promise<Map<number, Row>> {
  const cable = ctx.models.get('dcim.cable')!;
  if (!ids.length) return new Map();
  const rows = await q.query(sql`SELECT * FROM ${raw(ctx.db.table(cable.table))} WHERE id = ANY(${ids}::bigint[])`);
  return new Map(
    rows.map((r) => [
      Number(r.id),
      {
        id: Number(r.id),
        url: objectUrl(ctx, cable, base, r.id),
        type: r.type ?? '',
        status: r.status,
        label: r.label ?? '',
        color: r.color ?? '',
        length: r.length === null || r.length === undefined ? null : Number(r.length),
        length_unit: r.length_unit ?? '',
        description: r.description ?? '',
      },
    ]),
  );
}

/**
 * A wireless link in a traced path: NetBox hands it to TracedCableSerializer,
 * which keeps what a link has of a cable's fields (`id`, `status`,
 * `description`; `length` null) and skips the rest. Its `url` is the link's
 * own here (NetBox's names the cable of the link's id).
 */
async function tracedWirelessLinks(ctx: ServiceContext, ids: number[], base: string, q: Queryable): Promise<Map<number, Row>> {
  const link = ctx.models.get(WIRELESS_LINK);
  if (!link || !ids.length) return new Map();
  const rows = await q.query(sql`SELECT id, status, description FROM ${raw(ctx.db.table(link.table))} WHERE id = ANY(${ids}::bigint[])`);
  return new Map(rows.map((r) => [Number(r.id), { id: Number(r.id), url: objectUrl(ctx, link, base, r.id), status: r.status, length: null, description: r.description ?? '' }]));
}

/**
 * PathEndpoint.trace(): the endpoint's stored path as (near ends, cable, far
 * ends) segments, padded where the path stops at a pass-through, and
 * continued across a bridged interface at its far end.
 */
async function trace(ctx: ServiceContext, model: ModelDef, req: Request, res: Response): Promise<void> {
  const row = await visible(ctx, model, req, res);
  const base = baseUrl(req, ctx.settings.publicUrl);
  const hops: PathNode[][] = [];
  let pathId = row._path_id === null || row._path_id === undefined ? null : Number(row._path_id);
  const seen = new Set<number>();
  while (pathId !== null && !seen.has(pathId)) {
    seen.add(pathId);
    const p = (await pathsByIds(ctx, ctx.db, [pathId])).get(pathId);
    if (!p) break;
    hops.push(...p.path);
    if (hops.length % 3 === 1) hops.push([], []);
    else if (hops.length % 3 === 2) hops.splice(hops.length - 1, 0, []);
    const ends = destinationsOf(p);
    pathId = null;
    if (ends.length === 1 && parseNode(ends[0])[0] === 'dcim.interface') {
      const [far] = await ctx.db.query(
        sql`SELECT b._path_id FROM ${raw(ctx.db.table('interface'))} i JOIN ${raw(ctx.db.table('interface'))} b ON b.id = i.bridge_id WHERE i.id = ${parseNode(ends[0])[1]}`,
      );
      if (far && far._path_id !== null) pathId = Number(far._path_id);
    }
  }
  const objects = hops.filter((_, i) => i % 3 !== 1).flat();
  const linkNodes = hops.filter((_, i) => i % 3 === 1).flat();
  const idsOf = (label: string) => linkNodes.filter((n) => parseNode(n)[0] === label).map((n) => parseNode(n)[1]);
  const [nested, cables, wireless] = [
    await nestedNodes(ctx, objects, base, ctx.db),
    await tracedCables(ctx, idsOf('dcim.cable'), base, ctx.db),
    await tracedWirelessLinks(ctx, idsOf(WIRELESS_LINK), base, ctx.db),
  ];
  const traced = (n: PathNode) => (parseNode(n)[0] === WIRELESS_LINK ? wireless : cables).get(parseNode(n)[1]);
  const out: unknown[] = [];
  for (let i = 0; i + 2 < hops.length; i += 3) {
    const [near, link, far] = [hops[i], hops[i + 1], hops[i + 2]];
    // a split path stops where the near end is empty
    if (!near.length) break;
    out.push([
      near.map((n) => nested.get(n)).filter(Boolean),
      link.length ? (traced(link[0]) ?? []) : [],
      far.map((n) => nested.get(n)).filter(Boolean),
    ]);
  }
  sendJson(res, 200, out);
}

/** PassThroughPortMixin.paths(): every stored path through the port, each hop as nested objects. */
async function paths(ctx: ServiceContext, model: ModelDef, req: Request, res: Response): Promise<void> {
  const row = await visible(ctx, model, req, res);
  sendJson(res, 200, await pathsAnswer(ctx, node(model.label, Number(row.id)), baseUrl(req, ctx.settings.publicUrl)));
}

/** The `paths/` answer for any node: NetBox's CablePathSerializer over every stored path through it. */
async function pathsAnswer(ctx: ServiceContext, through: PathNode, base: string): Promise<unknown[]> {
  const found = await pathsThrough(ctx, ctx.db, [through]);
  const nested = await nestedNodes(ctx, found.flatMap((p) => p.path.flat()), base, ctx.db);
  return found.map((p) => ({
    id: p.id,
    path: p.path.map((hop) => hop.map((n) => nested.get(n)).filter(Boolean)),
    is_active: p.isActive,
    is_complete: p.isComplete,
    is_split: p.isSplit,
  }));
}

/** ConnectedDeviceViewSet: the device at the far end of a peer device's interface. */
async function connectedDevice(ctx: ServiceContext, req: Request, res: Response): Promise<void> {
  const device = ctx.models.get('dcim.device');
  const iface = ctx.models.get('dcim.interface');
  if (!device || !iface) throw new NotFound();
  const peerDevice = typeof req.query.peer_device === 'string' ? req.query.peer_device : '';
  const peerInterface = typeof req.query.peer_interface === 'string' ? req.query.peer_interface : '';
  if (!peerDevice || !peerInterface) throw new ValidationError({ detail: 'Request must include "peer_device" and "peer_interface" filters.' });
  const identity = identityOf(res);
  const devices = requirePermission(ctx, device, identity, 'view');
  const interfaces = requirePermission(ctx, iface, identity, 'view');
  const [peer] = await ctx.db.query(
    sql`SELECT t._path_id FROM ${raw(ctx.db.table(iface.table))} t JOIN ${raw(ctx.db.table(device.table))} d ON d.id = t.device_id
         WHERE d.name = ${peerDevice} AND t.name = ${peerInterface} AND ${interfaces} ORDER BY t.id LIMIT 1`,
  );
  if (!peer || peer._path_id === null) throw new NotFound();
  const p = (await pathsByIds(ctx, ctx.db, [Number(peer._path_id)])).get(Number(peer._path_id));
  const ends = p ? destinationsOf(p) : [];
  if (!ends.length || parseNode(ends[0])[0] !== 'dcim.interface') throw new NotFound();
  const [far] = await ctx.db.query(sql`SELECT device_id FROM ${raw(ctx.db.table(TERMINATION_TABLES['dcim.interface']))} WHERE id = ${parseNode(ends[0])[1]}`);
  const [d] = await ctx.db.query(sql`SELECT t.id FROM ${raw(ctx.db.table(device.table))} t WHERE t.id = ${far?.device_id ?? 0} AND ${devices}`);
  if (!d) throw new NotFound();
  const rows = await fetchByIds(ctx, device, [Number(d.id)]);
  const [rep] = await represent(ctx, device, rows, { mode: 'full', base: baseUrl(req, ctx.settings.publicUrl) });
  sendJson(res, 200, rep);
}
