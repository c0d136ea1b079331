import { ValidationError } from '@inventory/core';
import { sql, raw, type FilterDef } from '@inventory/filtering';
import { f, nestedFor, type FieldDef, type ModelDef, type ModelHooks, type Queryable, type Row, type ServiceContext, type WriteContext } from '@inventory/rest';
import { CABLE_TERMINATION_TABLE, destinationsOf, node, parseNode, pathsByIds, retraceThrough, type PathNode, type StoredPath } from './paths';

/**
 * What every object a cable may end on shares (NetBox's CabledObjectModel
 * and PathEndpoint, §0.10): `mark_connected`, the cable and its end, the
 * link peers and, on path endpoints, the far ends of their stored path,
 * all read for a page in a fixed number of statements.
 */

/** The cabled fields, in NetBox's wire order: `mark_connected, cable, cable_end, link_peers, link_peers_type`. */
export function cabledFields(): Record<string, FieldDef> {
  return {
    // components made from templates leave it unset: read and filtered as false
    mark_connected: f.boolean(false, { filter: false }),
    // read-only: a cable is attached by writing the cable; its PK in the nested form
    cable: f.fk('dcim.cable', 'SET_NULL', { readOnly: true, filterKey: null, filter: false, readAs: 'id' }),
    cable_end: f.string(1, { readOnly: true, filter: false }),
    link_peers: f.json({ readOnly: true, virtual: true }),
    link_peers_type: f.string(100, { readOnly: true, virtual: true, nullable: true }),
  };
}

/** The endpoint fields: `connected_endpoints, connected_endpoints_type, connected_endpoints_reachable`. */
export function endpointFields(): Record<string, FieldDef> {
  return {
    connected_endpoints: f.json({ readOnly: true, virtual: true }),
    connected_endpoints_type: f.string(100, { readOnly: true, virtual: true, nullable: true }),
    connected_endpoints_reachable: f.boolean(false, { readOnly: true, virtual: true, nullable: true, default: undefined }),
  };
}

/** `_occupied`, last on the wire. */
export const occupiedField = (): FieldDef => f.boolean(false, { readOnly: true, virtual: true, default: undefined });

/** `cabled`, `occupied`, `cable_end` (CabledObjectFilterSet) and, on path endpoints, `connected` (PathEndpointFilterSet). */
export function cabledFilters(ctx: ServiceContext, endpoint: boolean): FilterDef[] {
  const defs: FilterDef[] = [
    { kind: 'boolean', name: 'mark_connected', expr: sql`COALESCE(t.mark_connected, FALSE)` },
    { kind: 'boolean', name: 'cabled', expr: sql`(t.cable_id IS NOT NULL)` },
    { kind: 'boolean', name: 'occupied', expr: sql`(t.cable_id IS NOT NULL OR COALESCE(t.mark_connected, FALSE))` },
    { kind: 'choice', name: 'cable_end', expr: sql`NULLIF(t.cable_end, '')`, choices: ['A', 'B'], single: true, coerce: (v) => v },
  ];
  if (endpoint) {
    const paths = raw(ctx.db.table('cable_path'));
    defs.push({ kind: 'boolean', name: 'connected', expr: sql`COALESCE((SELECT p.is_active FROM ${paths} p WHERE p.id = t._path_id), FALSE)` });
  }
  return defs;
}

/** Nested representations of path nodes, one statement per model: by node. */
export async function nestedNodes(ctx: ServiceContext, nodes: PathNode[], base: string, q: Queryable): Promise<Map<PathNode, Row>> {
  const byType = new Map<string, number[]>();
  for (const n of new Set(nodes)) {
    const [label, id] = parseNode(n);
    byType.set(label, [...(byType.get(label) ?? []), id]);
  }
  const out = new Map<PathNode, Row>();
  for (const [label, ids] of byType) {
    const found = await nestedFor(ctx, label, ids, base, q).catch(() => new Map<number, Row>());
    for (const [id, rep] of found) out.set(node(label, id), rep);
  }
  return out;
}

/**
 * The decorate step of a cabled model: `_occupied` (and `cable_end`, which
 * reads `""` when uncabled), link peers from the cable terminations, and on
 * path endpoints the far ends of the stored path. `connectionStatus` adds
 * the seed's nested interface `connection_status`.
 */
export function decorateCabled(endpoint: boolean, connectionStatus = false, wireless = false): NonNullable<ModelHooks['decorate']> {
  return async (rows, out, { brief, service, q, base, wants }) => {
    const shown = (k: string) => wants?.(k) !== false;
    const root = base;
    const cabled = (r: Row) => r.cable_id !== null && r.cable_id !== undefined;
    // an interface joined by a wireless link (and no cable): its peer is the link's other end (its path is stored, as a cable's)
    const linked = (r: Row) => wireless && !brief && !cabled(r) && r.wireless_link_id !== null && r.wireless_link_id !== undefined;
    const links = shown('link_peers') ? await wirelessLinksOf(service, q, rows.filter(linked).map((r) => Number(r.wireless_link_id))) : new Map<number, Row>();
    const wirelessPeer = (r: Row): PathNode | null => {
      const l = linked(r) ? links.get(Number(r.wireless_link_id)) : undefined;
      if (!l) return null;
      return node('dcim.interface', Number(Number(l.interface_a_id) === Number(r.id) ? l.interface_b_id : l.interface_a_id));
    };
    if (brief) {
      if (connectionStatus && shown('connection_status')) {
        const paths = await pathsByIds(service, q, rows.map((r) => Number(r._path_id ?? 0)));
        rows.forEach((r, i) => {
          const p = paths.get(Number(r._path_id ?? 0));
          out[i].connection_status = p ? (p.isActive && p.isComplete ? { value: true, label: 'Connected' } : { value: false, label: 'Not Connected' }) : null;
        });
      }
    } else {
      rows.forEach((r, i) => {
        if ('cable_end' in out[i]) out[i].cable_end = r.cable_end ?? '';
        if ('mark_connected' in out[i]) out[i].mark_connected = !!r.mark_connected;
      });
      const wantPeers = shown('link_peers') || shown('link_peers_type');
      const wantEnds = endpoint && (shown('connected_endpoints') || shown('connected_endpoints_type') || shown('connected_endpoints_reachable'));
      const cables = wantPeers ? [...new Set(rows.filter(cabled).map((r) => Number(r.cable_id)))] : [];
      const terms = cables.length
        ? await q.query(
            sql`SELECT cable, cable_end, termination_type, termination_id FROM ${raw(service.db.table(CABLE_TERMINATION_TABLE))} WHERE cable = ANY(${cables}::bigint[]) ORDER BY id`,
          )
        : [];
      const byCable = new Map<number, Row[]>();
      for (const t of terms) byCable.set(Number(t.cable), [...(byCable.get(Number(t.cable)) ?? []), t]);
      const peersOf = (r: Row): PathNode[] => {
        if (!cabled(r)) return wirelessPeer(r) ? [wirelessPeer(r)!] : [];
        return (byCable.get(Number(r.cable_id)) ?? []).filter((t) => t.cable_end !== r.cable_end).map((t) => node(String(t.termination_type), Number(t.termination_id)));
      };
      const paths = wantEnds ? await pathsByIds(service, q, rows.map((r) => Number(r._path_id ?? 0))) : new Map<number, StoredPath>();
      // link peers and far ends are often the same objects: nested once
      const nested = await nestedNodes(service, [...rows.flatMap(peersOf), ...[...paths.values()].flatMap(destinationsOf)], root, q);
      rows.forEach((r, i) => {
        if (wantPeers) {
          const peers = peersOf(r);
          if ('link_peers' in out[i]) out[i].link_peers = peers.map((p) => nested.get(p)).filter(Boolean);
          // NetBox's get_link_peers_type: null without a cable (a wireless link's peer too)
          if ('link_peers_type' in out[i]) out[i].link_peers_type = peers.length && cabled(r) ? parseNode(peers[0])[0] : null;
        }
        if (wantEnds) {
          const p = paths.get(Number(r._path_id ?? 0));
          const ends = p ? destinationsOf(p) : [];
          if ('connected_endpoints' in out[i]) out[i].connected_endpoints = ends.length ? ends.map((e) => nested.get(e)).filter(Boolean) : null;
          if ('connected_endpoints_type' in out[i]) out[i].connected_endpoints_type = ends.length ? parseNode(ends[0])[0] : null;
          if ('connected_endpoints_reachable' in out[i]) out[i].connected_endpoints_reachable = p ? p.isComplete && p.isActive : null;
        }
      });
    }
    // `_occupied` comes last on the wire, after the timestamps
    rows.forEach((r, i) => {
      if (!('_occupied' in out[i])) return;
      delete out[i]._occupied;
      out[i]._occupied = !!r.mark_connected || cabled(r) || (wireless && r.wireless_link_id !== null && r.wireless_link_id !== undefined);
    });
  };
}

/** The wireless links named (their ends and status), one statement: none when no row has one. */
async function wirelessLinksOf(ctx: ServiceContext, q: Queryable, ids: number[]): Promise<Map<number, Row>> {
  if (!ids.length || !ctx.models.has('wireless.wirelesslink')) return new Map();
  const rows = await q.query(
    sql`SELECT id, status, interface_a_id, interface_b_id FROM ${raw(ctx.db.table('wireless_link'))} WHERE id = ANY(${[...new Set(ids)]}::bigint[])`,
  );
  return new Map(rows.map((r) => [Number(r.id), r]));
}

/** CabledObjectModel.clean(): no `mark_connected` with a cable attached. */
export function checkCabled(row: Row): void {
  if (row.mark_connected && row.cable_id !== null && row.cable_id !== undefined) {
    throw new ValidationError({ mark_connected: ['Cannot mark as connected with a cable attached.'] });
  }
}

/**
 * Before cabled objects are deleted: their cable terminations go (the cable
 * stays, one end shorter), and every path through them is traced again
 * without them (NetBox's nullify_connected_endpoints and retrace).
 */
export function deleteCabled(label: string): NonNullable<ModelHooks['beforeDelete']> {
  return async (ids: number[], wctx: WriteContext) => {
    const ctx = wctx.service;
    const nodes = ids.map((id) => node(label, id));
    await wctx.tx.query(
      sql`DELETE FROM ${raw(ctx.db.table(CABLE_TERMINATION_TABLE))} WHERE termination_type = ${label} AND termination_id = ANY(${ids}::bigint[])`,
    );
    await retraceThrough(ctx, wctx.tx, nodes, nodes);
  };
}

/** For models whose own changes move paths (front and rear ports): retrace what passes through them. */
export function retraceOnUpdate(label: string, columns: string[]): NonNullable<ModelHooks['afterSave']> {
  return async (saved, wctx) => {
    const moved = saved.filter((s) => s.existing && columns.some((c) => c in s.columns));
    if (moved.length) await retraceThrough(wctx.service, wctx.tx, moved.map((s) => node(label, s.id)));
  };
}

export type { ModelDef };
