import { ValidationError } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { capture, noteTouched, projectedModels, projection, type Row, type ServiceContext, type WriteContext } from '@inventory/rest';
import { INTERFACE_TYPE, WIRELESS_INTERFACE_TYPES } from '../models/component-choices';
import { VIRTUAL_INTERFACE_TYPES } from '../models/cable-choices';
import { CABLE_TERMINATION_TABLE, CIRCUIT_TERMINATION, TERMINATION_TABLES, circuitTermination, isTerminable, node, retraceThrough, traceEnd } from './paths';

/**
 * A cable's ends (NetBox's CableTermination): written with the cable, from
 * its `a_terminations` / `b_terminations` (`[{"object_type", "object_id"}]`),
 * validated with NetBox's messages, stored in `cable_termination`, mirrored
 * on each object (`cable_id`, `cable_end`) and followed by the paths.
 */

export type End = 'A' | 'B';

export interface Termination {
  type: string;
  id: number;
}

/** COMPATIBLE_TERMINATION_TYPES, by model name. */
const COMPATIBLE: Readonly<Record<string, readonly string[]>> = {
  circuittermination: ['interface', 'frontport', 'rearport', 'circuittermination'],
  consoleport: ['consoleserverport', 'frontport', 'rearport'],
  consoleserverport: ['consoleport', 'frontport', 'rearport'],
  interface: ['interface', 'circuittermination', 'frontport', 'rearport'],
  frontport: ['consoleport', 'consoleserverport', 'interface', 'frontport', 'rearport', 'circuittermination'],
  rearport: ['consoleport', 'consoleserverport', 'interface', 'frontport', 'rearport', 'circuittermination'],
  powerfeed: ['powerport'],
  poweroutlet: ['powerport'],
  powerport: ['poweroutlet', 'powerfeed'],
};

const modelName = (label: string) => label.split('.')[1];
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const pyType = (v: unknown) => (Array.isArray(v) ? 'list' : v === null ? 'NoneType' : typeof v === 'object' ? 'dict' : typeof v === 'string' ? 'str' : typeof v === 'number' ? (Number.isInteger(v) ? 'int' : 'float') : typeof v === 'boolean' ? 'bool' : typeof v);

/**
 * The terminations a body gives for one end (undefined when it gives none),
 * each checked as NetBox's GenericObjectSerializer does and found in its
 * table; errors shaped as DRF's (a list with `{}` for good elements).
 */
export async function parseEnd(wctx: WriteContext, field: string, value: unknown): Promise<Termination[]> {
  if (!Array.isArray(value)) throw new ValidationError({ [field]: [`Expected a list of items but got type "${pyType(value)}".`] });
  const errors: Record<string, string[]>[] = [];
  const parsed: (Termination | null)[] = [];
  for (const item of value) {
    const e: Record<string, string[]> = {};
    let t: Termination | null = null;
    if (!isObject(item)) {
      errors.push({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${pyType(item)}.`] });
      parsed.push(null);
      continue;
    }
    const type = item.object_type;
    const id = item.object_id;
    if (type === undefined || type === null) e.object_type = ['This field is required.'];
    else if (typeof type !== 'string' || !/^[a-z_0-9]+\.[a-z_0-9]+$/.test(type)) e.object_type = ["Invalid value. Specify a content type as '<app_label>.<model_name>'."];
    else if (!isTerminable(type)) e.object_type = [`Invalid content type: ${type}`];
    if (id === undefined || id === null) e.object_id = ['This field is required.'];
    else if (!(typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) && !(typeof id === 'string' && /^\d{1,15}$/.test(id))) e.object_id = ['A valid integer is required.'];
    if (!Object.keys(e).length) t = { type: String(type), id: Number(id) };
    errors.push(e);
    parsed.push(t);
  }
  // the objects exist (one statement per type)
  const byType = new Map<string, number[]>();
  for (const t of parsed) if (t) byType.set(t.type, [...(byType.get(t.type) ?? []), t.id]);
  for (const [type, ids] of byType) {
    // circuit terminations are looked up in dcim's projection of them
    const source = type === CIRCUIT_TERMINATION ? sql`${projection(wctx.service, type)} WHERE NOT deleted AND` : sql`${raw(wctx.service.db.table(TERMINATION_TABLES[type]))} WHERE`;
    const rows = type === CIRCUIT_TERMINATION && !projectedModels(wctx.service).has(type) ? [] : await wctx.tx.query(sql`SELECT id FROM ${source} id = ANY(${ids}::bigint[])`);
    const found = new Set(rows.map((r) => Number(r.id)));
    parsed.forEach((t, i) => {
      if (t && t.type === type && !found.has(t.id)) errors[i].object_id = [`Related object not found using the provided numeric ID: ${t.id}`];
    });
  }
  if (errors.some((e) => Object.keys(e).length)) throw new ValidationError({ [field]: errors });
  // the same object twice on one end counts once
  const seen = new Set<string>();
  return (parsed as Termination[]).filter((t) => {
    const k = node(t.type, t.id);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** The cable's stored terminations, by end. */
export async function storedEnds(ctx: ServiceContext, q: WriteContext['tx'], cable: number): Promise<Record<End, Termination[]>> {
  const rows = await q.query(
    sql`SELECT cable_end, termination_type, termination_id FROM ${raw(ctx.db.table(CABLE_TERMINATION_TABLE))} WHERE cable = ${cable} ORDER BY id`,
  );
  const out: Record<End, Termination[]> = { A: [], B: [] };
  for (const r of rows) out[r.cable_end as End].push({ type: String(r.termination_type), id: Number(r.termination_id) });
  return out;
}

/** Cable.clean() and CableTermination.clean() for a cable's ends, as NetBox words them (non-field errors). */
export async function checkEnds(wctx: WriteContext, cableId: number | null, a: Termination[], b: Termination[], modified: boolean): Promise<void> {
  const refuse = (message: string) => {
    throw new ValidationError({ __all__: [message] });
  };
  if (cableId === null && (!a.length || !b.length)) refuse('Must define A and B terminations when creating a new cable.');
  if (!modified) return;
  for (const end of [a, b]) if (end.length > 1 && end.some((t) => t.type !== end[0].type)) refuse('Cannot connect different termination types to same end of cable.');
  if (a.length && b.length) {
    const aType = modelName(a[0].type);
    const bType = modelName(b[0].type);
    if (!(COMPATIBLE[aType] ?? []).includes(bType)) refuse(`Incompatible termination types: ${aType} and ${bType}`);
    if (aType === bType && a.some((t) => b.some((u) => u.id === t.id))) refuse('A and B terminations cannot connect to the same object.');
  }
  const ctx = wctx.service;
  for (const t of [...a, ...b]) {
    if (t.type === 'dcim.interface') {
      const [i] = await wctx.tx.query(sql`SELECT type FROM ${raw(ctx.db.table('interface'))} WHERE id = ${t.id}`);
      const type = String(i?.type ?? '');
      if (VIRTUAL_INTERFACE_TYPES.has(type) || WIRELESS_INTERFACE_TYPES.has(type)) {
        refuse(`Cables cannot be terminated to ${INTERFACE_TYPE.find(([v]) => v === type)?.[1] ?? type} interfaces`);
      }
    }
  }
  // CableTermination.clean(): a circuit termination on a provider network takes no cable
  for (const t of [...a, ...b]) {
    if (t.type !== CIRCUIT_TERMINATION) continue;
    const term = await circuitTermination(ctx, wctx.tx, t.id);
    if (term && term.provider_network !== null && term.provider_network !== undefined) refuse('Circuit terminations attached to a provider network may not be cabled.');
  }
  const all = [...a, ...b];
  if (!all.length) return;
  const [taken] = await wctx.tx.query(
    sql`SELECT termination_type, termination_id, cable FROM ${raw(ctx.db.table(CABLE_TERMINATION_TABLE))}
         WHERE (termination_type, termination_id) IN (SELECT * FROM unnest(${all.map((t) => t.type)}::text[], ${all.map((t) => t.id)}::bigint[]))
           AND cable <> ${cableId ?? 0} ORDER BY id LIMIT 1`,
  );
  if (taken) refuse(`Duplicate termination found for ${String(taken.termination_type)} ${Number(taken.termination_id)}: cable ${Number(taken.cable)}`);
}

/** Sets (or clears) `cable_id` / `cable_end` on terminated objects, each change recorded with its event. */
async function mirror(wctx: WriteContext, terms: Termination[], cable: number | null, end: End | ''): Promise<void> {
  const ctx = wctx.service;
  const byType = new Map<string, number[]>();
  for (const t of terms) byType.set(t.type, [...(byType.get(t.type) ?? []), t.id]);
  for (const [type, ids] of byType) {
    // another service's objects (circuit terminations) learn of their cable from the cable's events
    if (!TERMINATION_TABLES[type]) continue;
    const model = ctx.models.get(type);
    const table = raw(ctx.db.table(TERMINATION_TABLES[type]));
    const rows = await wctx.tx.query(sql`SELECT * FROM ${table} WHERE id = ANY(${ids}::bigint[]) ORDER BY id FOR UPDATE`);
    if (!rows.length) continue;
    if (model) {
      await capture(ctx, model, wctx, rows);
      noteTouched(wctx, model, { updated: rows });
    }
    const stamp = model?.timestamps ? raw(', last_updated = now()') : raw('');
    await wctx.tx.query(sql`UPDATE ${table} SET cable_id = ${cable}, cable_end = ${end}, _version = _version + 1${stamp} WHERE id = ANY(${ids}::bigint[])`);
  }
}

/**
 * Stores a cable's ends after its row is written (create or update): ends
 * given replace the stored ones (objects no longer listed are detached),
 * then paths are traced as NetBox's trace_paths does; a status change alone
 * retraces the paths through the cable.
 */
export async function saveEnds(wctx: WriteContext, cable: number, given: Partial<Record<End, Termination[]>>, statusChanged: boolean): Promise<void> {
  const ctx = wctx.service;
  const table = raw(ctx.db.table(CABLE_TERMINATION_TABLE));
  const stored = await storedEnds(ctx, wctx.tx, cable);
  const removed: Termination[] = [];
  let modified = false;
  for (const end of ['A', 'B'] as End[]) {
    const next = given[end];
    if (!next) continue;
    const key = (t: Termination) => node(t.type, t.id);
    const keep = new Set(next.map(key));
    const had = new Set(stored[end].map(key));
    const gone = stored[end].filter((t) => !keep.has(key(t)));
    const added = next.filter((t) => !had.has(key(t)));
    if (!gone.length && !added.length) continue;
    modified = true;
    if (gone.length) {
      const goneRows = await wctx.tx.query(
        sql`SELECT * FROM ${table} WHERE cable = ${cable} AND cable_end = ${end} AND (termination_type, termination_id) IN (SELECT * FROM unnest(${gone.map((t) => t.type)}::text[], ${gone.map((t) => t.id)}::bigint[])) ORDER BY id FOR UPDATE`,
      );
      await endsChanged(wctx, { deleted: goneRows });
      await wctx.tx.query(sql`DELETE FROM ${table} WHERE id = ANY(${goneRows.map((r) => r.id)}::bigint[])`);
      await mirror(wctx, gone, null, '');
      removed.push(...gone);
    }
    if (added.length) {
      // one object on two cables of one bulk write (or two racing writes): the unique index refuses the second, as NetBox's check would
      await wctx.tx.query(sql`SAVEPOINT cable_ends`);
      try {
        const made = await wctx.tx.query(
          sql`INSERT INTO ${table} (cable, cable_end, termination_type, termination_id)
              SELECT ${cable}, ${end}, * FROM unnest(${added.map((t) => t.type)}::text[], ${added.map((t) => t.id)}::bigint[]) RETURNING id`,
        );
        await endsChanged(wctx, { created: made.map((r) => Number(r.id)) });
      } catch (err) {
        if ((err as { code?: string }).code !== '23505') throw err;
        await wctx.tx.query(sql`ROLLBACK TO SAVEPOINT cable_ends`);
        const [taken] = await wctx.tx.query(
          sql`SELECT termination_type, termination_id, cable FROM ${table}
               WHERE (termination_type, termination_id) IN (SELECT * FROM unnest(${added.map((t) => t.type)}::text[], ${added.map((t) => t.id)}::bigint[])) ORDER BY id LIMIT 1`,
        );
        const what = taken ? `${String(taken.termination_type)} ${Number(taken.termination_id)}: cable ${Number(taken.cable)}` : `${added[0].type} ${added[0].id}`;
        throw new ValidationError({ __all__: [`Duplicate termination found for ${what}`] });
      }
      await mirror(wctx, added, cable, end);
    }
  }
  const cableNode = node('dcim.cable', cable);
  if (modified) {
    // paths through the cable or the detached objects, then each end (NetBox's nullify_connected_endpoints and trace_paths)
    await retraceThrough(ctx, wctx.tx, [cableNode, ...removed.map((t) => node(t.type, t.id))]);
    const now = await storedEnds(ctx, wctx.tx, cable);
    for (const end of ['A', 'B'] as End[]) {
      const terms = now[end];
      if (terms.length) await traceEnd(ctx, wctx.tx, terms[0].type, terms.map((t) => t.id));
    }
  } else if (statusChanged) {
    await retraceThrough(ctx, wctx.tx, [cableNode]);
  }
}

/**
 * Before cables are deleted: the objects on their ends lose `cable` and
 * `cable_end` (each an update with its event), the terminations go, and the
 * paths through the cables are traced again (NetBox's CableTermination
 * delete signal). The engine's SET_NULL rule then finds nothing left to clear.
 */
export async function deleteEnds(wctx: WriteContext, cables: number[]): Promise<void> {
  const ctx = wctx.service;
  const table = raw(ctx.db.table(CABLE_TERMINATION_TABLE));
  const ends = await wctx.tx.query(sql`SELECT * FROM ${table} WHERE cable = ANY(${cables}::bigint[]) ORDER BY id FOR UPDATE`);
  await endsChanged(wctx, { deleted: ends });
  const rows = await wctx.tx.query(sql`DELETE FROM ${table} WHERE cable = ANY(${cables}::bigint[]) RETURNING termination_type, termination_id`);
  await mirror(
    wctx,
    rows.map((r) => ({ type: String(r.termination_type), id: Number(r.termination_id) })),
    null,
    '',
  );
  await retraceThrough(ctx, wctx.tx, cables.map((c) => node('dcim.cable', c)));
}

/**
 * A cable's ends are change-logged objects of their own (NetBox's
 * CableTermination): each created or deleted end has its change record and
 * event, which is how other services learn of cables on their objects (a
 * circuit termination's cable, in circuits' projection of the ends).
 */
async function endsChanged(wctx: WriteContext, touched: { created?: number[]; deleted?: Row[] }): Promise<void> {
  const model = wctx.service.models.get('dcim.cabletermination');
  if (!model) return;
  if (touched.deleted?.length) await capture(wctx.service, model, wctx, touched.deleted);
  if (touched.created?.length || touched.deleted?.length) noteTouched(wctx, model, touched);
}

export type { Row };
