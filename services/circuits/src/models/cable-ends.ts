import { sql, type FilterDef } from '@inventory/filtering';
import { f, projectedModels, projectedNested, projection, type FieldDef, type Queryable, type Row, type ServiceContext } from '@inventory/rest';

/**
 * A circuit termination's cable, as NetBox's cabled objects show it (§0.10).
 * Cables and their ends are dcim's: this service keeps projections of them
 * (dcim's cable terminations, with the nested object each ends on, and its
 * cables), so a page of terminations reads its cables, ends and link peers
 * in a fixed number of statements and no HTTP call.
 */
export const CABLE_END_LABEL = 'dcim.cabletermination';
const CABLE_LABEL = 'dcim.cable';
const OWN_TYPE = 'circuits.circuittermination';

/** What the engine projects for it: the ends, looked up by the object they end on and by cable. */
export const CABLE_READS = [{ label: CABLE_END_LABEL, keys: ['termination_id', 'cable'] }, { label: CABLE_LABEL }];

/** `cable`, `cable_end`, `link_peers`, `link_peers_type` (after `mark_connected`), and `_occupied` (moved last on the wire). */
export function cableFields(): Record<string, FieldDef> {
  return {
    cable: f.fk(CABLE_LABEL, 'SET_NULL', { readOnly: true, virtual: true, filter: false, orderable: false }),
    cable_end: f.string(1, { readOnly: true, virtual: true, filter: false, orderable: false }),
    link_peers: f.json({ readOnly: true, virtual: true, orderable: false }),
    link_peers_type: f.string(100, { readOnly: true, virtual: true, nullable: true, orderable: false }),
    _occupied: f.boolean(false, { readOnly: true, virtual: true, default: undefined, orderable: false }),
  };
}

/** The end of each termination's cable (this service's terminations), as projected. */
const ownEnds = (ctx: ServiceContext) =>
  sql`SELECT (e.data->>'termination_id')::bigint AS tid, (e.data->>'cable')::bigint AS cable, e.data->>'cable_end' AS end_
        FROM ${projection(ctx, CABLE_END_LABEL)} e WHERE NOT e.deleted AND e.data->>'termination_type' = ${OWN_TYPE}`;

/** `cabled`, `occupied` and `cable_end` (CabledObjectFilterSet), over the projected ends. */
export function cableFilters(ctx: ServiceContext): FilterDef[] {
  if (!projectedModels(ctx).has(CABLE_END_LABEL)) return [];
  const cabled = sql`EXISTS (SELECT 1 FROM (${ownEnds(ctx)}) o WHERE o.tid = t.id)`;
  return [
    { kind: 'boolean', name: 'cabled', expr: cabled },
    { kind: 'boolean', name: 'occupied', expr: sql`(${cabled} OR t.mark_connected)` },
    { kind: 'choice', name: 'cable_end', expr: sql`(SELECT o.end_ FROM (${ownEnds(ctx)}) o WHERE o.tid = t.id LIMIT 1)`, choices: ['A', 'B'], single: true, coerce: (v) => v },
  ];
}

/**
 * The decorate step: each termination's cable (nested; its PK in the brief
 * form), its end, the objects at the cable's other end (`link_peers`) and
 * their type, and `_occupied`, last on the wire.
 */
export async function decorateCableEnds(rows: Row[], out: Row[], c: { brief: boolean; service: ServiceContext; q: Queryable; base: string }): Promise<void> {
  const ctx = c.service;
  const base = c.base;
  const ids = rows.map((r) => Number(r.id));
  const mine = projectedModels(ctx).has(CABLE_END_LABEL)
    ? await c.q.query(sql`SELECT * FROM (${ownEnds(ctx)}) o WHERE o.tid = ANY(${ids}::bigint[])`)
    : [];
  const endOf = new Map(mine.map((m) => [Number(m.tid), { cable: Number(m.cable), end: String(m.end_) }]));
  const cableIds = [...new Set(mine.map((m) => Number(m.cable)))];
  const ends = cableIds.length
    ? await c.q.query(sql`SELECT id, (data->>'cable')::bigint AS cable, data->>'cable_end' AS end_, data->>'termination_type' AS type
                            FROM ${projection(ctx, CABLE_END_LABEL)} WHERE NOT deleted AND (data->>'cable')::bigint = ANY(${cableIds}::bigint[]) ORDER BY id`)
    : [];
  const [endReps, cables] = await Promise.all([
    ends.length ? projectedNested(ctx, CABLE_END_LABEL, ends.map((e) => Number(e.id)), base, c.q) : new Map<number, Row>(),
    cableIds.length && !c.brief ? projectedNested(ctx, CABLE_LABEL, cableIds, base, c.q) : new Map<number, Row>(),
  ]);
  out.forEach((rep, i) => {
    const own = endOf.get(Number(rows[i].id));
    const occupied = !!own || !!rows[i].mark_connected;
    if (c.brief) {
      rep.cable = own ? own.cable : null;
    } else {
      const peers = own ? ends.filter((e) => Number(e.cable) === own.cable && e.end_ !== own.end) : [];
      rep.cable = own ? (cables.get(own.cable) ?? { id: own.cable }) : null;
      rep.cable_end = own ? own.end : '';
      rep.link_peers = peers.map((e) => (endReps.get(Number(e.id))?.termination as Row | undefined) ?? null).filter(Boolean);
      rep.link_peers_type = peers.length ? String(peers[0].type) : null;
    }
    delete rep._occupied;
    rep._occupied = occupied;
  });
}
