import { sql, raw } from '@inventory/filtering';
import { projectedModels, projection, type Queryable, type Row, type ServiceContext } from '@inventory/rest';

/**
 * Cable paths, stored as NetBox's CablePath: one row per path origin set,
 * its hops (`path`, a list of node lists), the flattened nodes (`_nodes`,
 * GIN-indexed, to find every path through an object) and its state. Path
 * endpoints point at their path (`_path_id`). Paths are traced in the
 * write's transaction (NetBox's CablePath.from_origin), so a read never
 * walks a cable.
 */

/** A node of a path: `<app>.<model>:<id>` (NetBox's object_to_path_node). */
export type PathNode = string;

export const node = (label: string, id: number | string): PathNode => `${label}:${String(id)}`;

export function parseNode(n: PathNode): [label: string, id: number] {
  const i = n.lastIndexOf(':');
  return [n.slice(0, i), Number(n.slice(i + 1))];
}

export const CABLE_PATH_TABLE = 'cable_path';
export const CABLE_TERMINATION_TABLE = 'cable_termination';

/** Tables of the objects a cable may end on (dcim's own). */
export const TERMINATION_TABLES: Readonly<Record<string, string>> = {
  'dcim.consoleport': 'console_port',
  'dcim.consoleserverport': 'console_server_port',
  'dcim.powerport': 'power_port',
  'dcim.poweroutlet': 'power_outlet',
  'dcim.interface': 'interface',
  'dcim.frontport': 'front_port',
  'dcim.rearport': 'rear_port',
  'dcim.powerfeed': 'power_feed',
};

/**
 * Circuit terminations are the circuits service's: a cable may end on one
 * (checked against dcim's projection of them, kept from circuits' events),
 * and a path crosses its circuit from one end to the other.
 */
export const CIRCUIT_TERMINATION = 'circuits.circuittermination';

/** Every model a cable may end on. */
export const isTerminable = (label: string): boolean => label in TERMINATION_TABLES || label === CIRCUIT_TERMINATION;

/** A circuit termination as dcim's projection holds it (the owner's stored values), or undefined. */
export async function circuitTermination(ctx: ServiceContext, q: Queryable, id: number): Promise<Row | undefined> {
  if (!projectedModels(ctx).has(CIRCUIT_TERMINATION)) return undefined;
  const [hit] = await q.query(sql`SELECT id, data FROM ${projection(ctx, CIRCUIT_TERMINATION)} WHERE id = ${id} AND NOT deleted`);
  return hit ? { id: Number(hit.id), ...(hit.data as Row) } : undefined;
}

/** The other end of a circuit termination's circuit (A for Z, Z for A), or undefined. */
async function circuitPeer(ctx: ServiceContext, q: Queryable, term: Row): Promise<Row | undefined> {
  const side = term.term_side === 'A' ? 'Z' : 'A';
  const [hit] = await q.query(
    sql`SELECT id, data FROM ${projection(ctx, CIRCUIT_TERMINATION)} WHERE NOT deleted AND data->>'circuit' = ${String(term.circuit)} AND data->>'term_side' = ${side} ORDER BY id LIMIT 1`,
  );
  return hit ? { id: Number(hit.id), ...(hit.data as Row) } : undefined;
}

/** Objects whose path starts at them (NetBox's PathEndpoint): they keep `_path_id`. */
export const PATH_ENDPOINTS: ReadonlySet<string> = new Set([
  'dcim.consoleport',
  'dcim.consoleserverport',
  'dcim.powerport',
  'dcim.poweroutlet',
  'dcim.interface',
  'dcim.powerfeed',
]);

export interface TracedPath {
  path: PathNode[][];
  isActive: boolean;
  isComplete: boolean;
  isSplit: boolean;
}

export interface StoredPath extends TracedPath {
  id: number;
  originType: string;
  originIds: number[];
}

const table = (ctx: ServiceContext, name: string) => raw(ctx.db.table(name));

interface Link {
  id: number;
  termination: number;
  cable: number;
  end: string;
}

/**
 * NetBox's CablePath.from_origin: from the origin objects (one type) across
 * their cable, then through front/rear port pass-throughs (positions kept
 * on a stack, so a multi-position rear port leads back to the front port of
 * the same position), until an endpoint, a missing link or a split.
 * Null when the origins have no cable at all.
 */
export async function traceFrom(ctx: ServiceContext, q: Queryable, originType: string, originIds: number[]): Promise<TracedPath | null> {
  const walk: Walk = { path: [], positionStack: [], isComplete: false, isActive: true, isSplit: false, type: originType, ids: [...originIds] };
  // a path cannot visit more hops than objects exist; this bounds a malformed loop
  for (let hop = 0; walk.ids.length && hop < 256; hop++) {
    const far = await crossCables(ctx, q, walk);
    if (far === 'no path') return null;
    if (!far || !(await passThrough(ctx, q, walk, far))) break;
  }
  const { path, isActive, isComplete, isSplit } = walk;
  return { path, isActive, isComplete, isSplit };
}

/** A path being traced: what it recorded, its flags, and the objects (of one type) it is at. */
interface Walk extends TracedPath {
  /** Rear port positions entered, popped when the path leaves through a rear port again. */
  positionStack: number[][];
  type: string;
  ids: number[];
}

interface Far {
  type: string;
  ids: number[];
}

/**
 * Steps 1 to 7 of a hop: records the near-end objects, their cables and the
 * objects at the cables' far ends. The far ends to go on from; null when
 * the path ends here; 'no path' when the origins have no cable.
 */
async function crossCables(ctx: ServiceContext, q: Queryable, walk: Walk): Promise<Far | null | 'no path'> {
  const { path, positionStack, type, ids } = walk;
  const terminations = table(ctx, CABLE_TERMINATION_TABLE);
  const links: Link[] = (
    await q.query(sql`SELECT id, termination_id, cable, cable_end FROM ${terminations} WHERE termination_type = ${type} AND termination_id = ANY(${ids}::bigint[]) ORDER BY id`)
  ).map((r) => ({ id: Number(r.id), termination: Number(r.termination_id), cable: Number(r.cable), end: String(r.cable_end) }));
  const linkOf = new Map(links.map((l) => [l.termination, l]));
  // a rear port fanning out to front ports with different cables
  const distinct = new Set(ids.map((id) => linkOf.get(id)?.cable ?? null));
  if (distinct.size > 1 && positionStack.length && ids.length !== positionStack[positionStack.length - 1].length) {
    walk.isSplit = true;
    return null;
  }
  // Step 1: the near-end objects
  path.push(ids.map((id) => node(type, id)));
  // Step 2: their links: cables, or wireless links between interfaces
  if (!links.length && type === 'dcim.interface') {
    const across = await crossWireless(ctx, q, walk);
    if (across !== undefined) return across;
  }
  if (!links.length) return path.length === 1 ? 'no path' : null;
  // Step 3: some objects of this end have no cable: asymmetric, recorded as split
  if (ids.some((id) => !linkOf.has(id))) {
    walk.isComplete = false;
    walk.isSplit = true;
  }
  // Step 4: the cables, in order, once each
  const cables = [...new Set(ids.map((id) => linkOf.get(id)?.cable).filter((c): c is number => c !== undefined))];
  path.push(cables.map((c) => node('dcim.cable', c)));
  // Step 5: a cable that is not connected makes the path inactive
  const statuses = await q.query(sql`SELECT status FROM ${table(ctx, 'cable')} WHERE id = ANY(${cables}::bigint[])`);
  if (statuses.some((s) => s.status !== 'connected')) walk.isActive = false;
  // Step 6: the far-end objects: the other end of each cable
  const far = await q.query(
    sql`SELECT f.termination_type, f.termination_id FROM ${terminations} f
        JOIN unnest(${links.map((l) => l.cable)}::bigint[], ${links.map((l) => (l.end === 'A' ? 'B' : 'A'))}::text[]) AS w(cable, cable_end)
          ON f.cable = w.cable AND f.cable_end = w.cable_end
        GROUP BY f.id, f.termination_type, f.termination_id ORDER BY f.id`,
  );
  // Step 7: recorded
  path.push(far.map((r) => node(String(r.termination_type), Number(r.termination_id))));
  if (!far.length) return null;
  const farType = String(far[0].termination_type);
  if (far.some((r) => r.termination_type !== farType)) {
    walk.isComplete = false;
    walk.isSplit = true;
    return null;
  }
  return { type: farType, ids: far.map((r) => Number(r.termination_id)) };
}

/** Wireless links, as path nodes (NetBox's object_to_path_node of a WirelessLink). */
export const WIRELESS_LINK = 'wireless.wirelesslink';
const WIRELESS_LINK_TABLE = 'wireless_link';

/**
 * Steps 2 to 7 across wireless links (NetBox's from_origin follows a
 * WirelessLink to its far-end interface): the links of the interfaces the
 * walk is at, recorded as the hop's links, and the interfaces at their other
 * ends. Undefined when none of the interfaces has a wireless link.
 */
async function crossWireless(ctx: ServiceContext, q: Queryable, walk: Walk): Promise<Far | null | undefined> {
  if (!ctx.models.has(WIRELESS_LINK)) return undefined;
  const { path, ids } = walk;
  const links = await q.query(
    sql`SELECT id, status, interface_a_id, interface_b_id FROM ${table(ctx, WIRELESS_LINK_TABLE)}
         WHERE interface_a_id = ANY(${ids}::bigint[]) OR interface_b_id = ANY(${ids}::bigint[]) ORDER BY id`,
  );
  if (!links.length) return undefined;
  const linkOf = new Map<number, Row>();
  for (const l of links) for (const end of [Number(l.interface_a_id), Number(l.interface_b_id)]) if (ids.includes(end) && !linkOf.has(end)) linkOf.set(end, l);
  // Step 3: some interfaces have no link: asymmetric, recorded as split
  if (ids.some((id) => !linkOf.has(id))) {
    walk.isComplete = false;
    walk.isSplit = true;
  }
  // Step 4: the links, once each
  const used = [...new Map(ids.filter((id) => linkOf.has(id)).map((id) => [Number(linkOf.get(id)!.id), linkOf.get(id)!])).values()];
  path.push(used.map((l) => node(WIRELESS_LINK, Number(l.id))));
  // Step 5: a link that is not connected makes the path inactive
  if (used.some((l) => l.status !== 'connected')) walk.isActive = false;
  // Steps 6 and 7: the interface at the other end of each link
  const far = ids.filter((id) => linkOf.has(id)).map((id) => {
    const l = linkOf.get(id)!;
    return Number(l.interface_a_id) === id ? Number(l.interface_b_id) : Number(l.interface_a_id);
  });
  path.push(far.map((id) => node('dcim.interface', id)));
  return { type: 'dcim.interface', ids: far };
}

/** Step 8: on through a pass-through (front port, rear port, circuit); false when the path ends at the far end. */
async function passThrough(ctx: ServiceContext, q: Queryable, walk: Walk, far: Far): Promise<boolean> {
  if (far.type === 'dcim.frontport') return throughFrontPorts(ctx, q, walk, far.ids);
  if (far.type === 'dcim.rearport') return throughRearPorts(ctx, q, walk, far.ids);
  if (far.type === CIRCUIT_TERMINATION) return acrossCircuit(ctx, q, walk, far.ids);
  // endpoints of one type: the path is complete
  walk.isComplete = true;
  return false;
}

/** From front ports to their rear ports, the positions pushed when a rear port has several. */
async function throughFrontPorts(ctx: ServiceContext, q: Queryable, walk: Walk, farIds: number[]): Promise<boolean> {
  const fronts = await q.query(sql`SELECT id, rear_port_id, rear_port_position FROM ${table(ctx, 'front_port')} WHERE id = ANY(${farIds}::bigint[])`);
  const byId = new Map(fronts.map((f) => [Number(f.id), f]));
  const rearIds = [...new Set(farIds.map((id) => Number(byId.get(id)?.rear_port_id)).filter((id) => id > 0))];
  const rears = await q.query(sql`SELECT id, positions FROM ${table(ctx, 'rear_port')} WHERE id = ANY(${rearIds}::bigint[]) ORDER BY id`);
  if (!rears.length) return false;
  if (rears.length > 1 || Number(rears[0].positions) > 1) walk.positionStack.push(farIds.map((id) => Number(byId.get(id)?.rear_port_position)));
  walk.type = 'dcim.rearport';
  walk.ids = rears.map((r) => Number(r.id));
  return true;
}

/** From rear ports to the front ports of the positions popped (a single-position rear port to its one front port). */
async function throughRearPorts(ctx: ServiceContext, q: Queryable, walk: Walk, farIds: number[]): Promise<boolean> {
  const rears = await q.query(sql`SELECT id, positions FROM ${table(ctx, 'rear_port')} WHERE id = ANY(${farIds}::bigint[])`);
  const positionsOf = new Map(rears.map((r) => [Number(r.id), Number(r.positions)]));
  let pairs: [number, number][];
  if (farIds.length === 1 && positionsOf.get(farIds[0]) === 1) pairs = [[farIds[0], 1]];
  else {
    // no position known, or not one per rear port: the path splits at the rear port
    const positions = walk.positionStack.pop();
    if (!positions || positions.length !== farIds.length) {
      walk.isSplit = true;
      return false;
    }
    // NetBox pops the positions from the end as it walks the rear ports
    pairs = farIds.map((id) => [id, positions.pop()!]);
  }
  const fronts = await q.query(
    sql`SELECT f.id FROM ${table(ctx, 'front_port')} f
        JOIN unnest(${pairs.map((p) => p[0])}::bigint[], ${pairs.map((p) => p[1])}::int[]) AS w(rear, position)
          ON f.rear_port_id = w.rear AND f.rear_port_position = w.position
        ORDER BY f.id`,
  );
  walk.type = 'dcim.frontport';
  walk.ids = fronts.map((f) => Number(f.id));
  return true;
}

/** Across a circuit, A to Z or Z to A: on from the peer termination's cable, or complete at a provider network. */
async function acrossCircuit(ctx: ServiceContext, q: Queryable, walk: Walk, farIds: number[]): Promise<boolean> {
  if (farIds.length > 1) {
    walk.isSplit = true;
    return false;
  }
  const here = await circuitTermination(ctx, q, farIds[0]);
  const peer = here ? await circuitPeer(ctx, q, here) : undefined;
  if (!peer) return false;
  const isSet = (v: unknown) => v !== null && v !== undefined && v !== '';
  if (isSet(peer.provider_network)) {
    // the circuit ends on a provider network: complete there
    walk.path.push([node(CIRCUIT_TERMINATION, Number(peer.id))], [node('circuits.providernetwork', Number(peer.provider_network))]);
    walk.isComplete = true;
    return false;
  }
  const [peerCable] = await q.query(sql`SELECT 1 FROM ${table(ctx, CABLE_TERMINATION_TABLE)} WHERE termination_type = ${CIRCUIT_TERMINATION} AND termination_id = ${peer.id}`);
  if (isSet(peer.site) && !peerCable) {
    // the circuit ends on a site with nothing cabled to it
    walk.path.push([node(CIRCUIT_TERMINATION, Number(peer.id))], [node('dcim.site', Number(peer.site))]);
    return false;
  }
  walk.type = CIRCUIT_TERMINATION;
  walk.ids = [Number(peer.id)];
  return true;
}

/** The far-end objects of a complete path (NetBox's CablePath.destinations). */
export function destinationsOf(p: { path: PathNode[][]; isComplete: boolean }): PathNode[] {
  return p.isComplete && p.path.length ? p.path[p.path.length - 1] : [];
}

function storedOf(r: Record<string, unknown>): StoredPath {
  return {
    id: Number(r.id),
    originType: String(r.origin_type),
    originIds: ((r.origin_ids ?? []) as unknown[]).map(Number),
    path: (r.path ?? []) as PathNode[][],
    isActive: !!r.is_active,
    isComplete: !!r.is_complete,
    isSplit: !!r.is_split,
  };
}

export async function pathsByIds(ctx: ServiceContext, q: Queryable, ids: number[]): Promise<Map<number, StoredPath>> {
  const wanted = [...new Set(ids.filter((id) => id > 0))];
  if (!wanted.length) return new Map();
  const rows = await q.query(sql`SELECT * FROM ${table(ctx, CABLE_PATH_TABLE)} WHERE id = ANY(${wanted}::bigint[])`);
  return new Map(rows.map((r) => [Number(r.id), storedOf(r)]));
}

/** Every stored path through any of the nodes, in id order. */
export async function pathsThrough(ctx: ServiceContext, q: Queryable, nodes: PathNode[]): Promise<StoredPath[]> {
  if (!nodes.length) return [];
  const rows = await q.query(sql`SELECT * FROM ${table(ctx, CABLE_PATH_TABLE)} WHERE _nodes && ${nodes}::text[] ORDER BY id`);
  return rows.map(storedOf);
}

async function writePath(ctx: ServiceContext, q: Queryable, originType: string, originIds: number[], traced: TracedPath, id: number | null): Promise<void> {
  const nodes = traced.path.flat();
  const paths = table(ctx, CABLE_PATH_TABLE);
  const json = JSON.stringify(traced.path);
  let pathId = id;
  if (pathId === null) {
    const [row] = await q.query(
      sql`INSERT INTO ${paths} (origin_type, origin_ids, path, _nodes, is_active, is_complete, is_split)
          VALUES (${originType}, ${originIds}::bigint[], ${json}::jsonb, ${nodes}::text[], ${traced.isActive}, ${traced.isComplete}, ${traced.isSplit}) RETURNING id`,
    );
    pathId = Number(row.id);
  } else {
    await q.query(
      sql`UPDATE ${paths} SET origin_ids = ${originIds}::bigint[], path = ${json}::jsonb, _nodes = ${nodes}::text[], is_active = ${traced.isActive},
          is_complete = ${traced.isComplete}, is_split = ${traced.isSplit} WHERE id = ${pathId}`,
    );
  }
  // NetBox's CablePath.save(): the origins point at their path
  const origins = TERMINATION_TABLES[originType];
  if (origins) await q.query(sql`UPDATE ${table(ctx, origins)} SET _path_id = ${pathId} WHERE id = ANY(${originIds}::bigint[])`);
}

/**
 * NetBox's create_cablepath: traces from path endpoints and stores the
 * result, replacing the paths those origins had (their `_path_id` is
 * cleared by the foreign key when a path row goes).
 */
export async function createPath(ctx: ServiceContext, q: Queryable, originType: string, originIds: number[]): Promise<void> {
  if (!originIds.length || !PATH_ENDPOINTS.has(originType)) return;
  await q.query(
    sql`DELETE FROM ${table(ctx, CABLE_PATH_TABLE)} WHERE origin_type = ${originType} AND origin_ids && ${originIds}::bigint[]`,
  );
  const traced = await traceFrom(ctx, q, originType, originIds);
  if (traced) await writePath(ctx, q, originType, originIds, traced, null);
}

/**
 * NetBox's rebuild_paths / CablePath.retrace: every path through the nodes
 * is traced again from its origins (less those in `gone`, about to be
 * deleted); a path with no origin or no cable left is deleted.
 */
export async function retraceThrough(ctx: ServiceContext, q: Queryable, nodes: PathNode[], gone: PathNode[] = []): Promise<void> {
  const goneSet = new Set(gone);
  for (const p of await pathsThrough(ctx, q, nodes)) {
    const origins = p.originIds.filter((id) => !goneSet.has(node(p.originType, id)));
    const traced = origins.length ? await traceFrom(ctx, q, p.originType, origins) : null;
    if (traced) await writePath(ctx, q, p.originType, origins, traced, p.id);
    else await q.query(sql`DELETE FROM ${table(ctx, CABLE_PATH_TABLE)} WHERE id = ${p.id}`);
  }
}

/** After one end of a cable changed: paths from endpoints are traced anew, paths through pass-throughs retraced (NetBox's trace_paths). */
export async function traceEnd(ctx: ServiceContext, q: Queryable, type: string, ids: number[]): Promise<void> {
  if (!ids.length) return;
  if (PATH_ENDPOINTS.has(type)) await createPath(ctx, q, type, ids);
  else await retraceThrough(ctx, q, ids.map((id) => node(type, id)));
}
