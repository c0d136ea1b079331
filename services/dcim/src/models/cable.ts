import { ValidationError } from '@inventory/core';
import { sql, raw, or, excludedBy, type FilterDef, type Sql } from '@inventory/filtering';
import { defineModel, f, keyResolver, TENANT_GROUP_HOPS, type ModelDef, type Row, type ServiceContext, type WriteContext } from '@inventory/rest';
import { CABLE_LENGTH_UNIT, CABLE_TYPE, COLOR_CHOICES, LINK_STATUS } from './cable-choices';
import { blankColor } from './component-template';
import { nestedNodes } from '../cabling/cabled';
import { CABLE_TERMINATION_TABLE, CIRCUIT_TERMINATION, TERMINATION_TABLES, node } from '../cabling/paths';
import { checkEnds, deleteEnds, parseEnd, saveEnds, storedEnds, type End, type Termination } from '../cabling/terminations';

const has = (body: Row, key: string) => Object.prototype.hasOwnProperty.call(body, key);

/** The ends a body gives, parsed and checked (memoised per body: validate and afterSave read them both). */
const parsedEnds = new WeakMap<Row, Promise<Partial<Record<End, Termination[]>>>>();
function endsOf(wctx: WriteContext, body: Row): Promise<Partial<Record<End, Termination[]>>> {
  let hit = parsedEnds.get(body);
  if (!hit) {
    hit = (async () => {
      const out: Partial<Record<End, Termination[]>> = {};
      const errors: Record<string, unknown> = {};
      for (const [end, field] of [['A', 'a_terminations'], ['B', 'b_terminations']] as const) {
        if (!has(body, field)) continue;
        try {
          out[end] = await parseEnd(wctx, field, body[field]);
        } catch (err) {
          if (!(err instanceof ValidationError) || Array.isArray(err.errors)) throw err;
          Object.assign(errors, err.errors);
        }
      }
      if (Object.keys(errors).length) throw new ValidationError(errors);
      return out;
    })();
    parsedEnds.set(body, hit);
  }
  return hit;
}

/** NetBox's Cable: ends written as `a_terminations` / `b_terminations`, kept in `cable_termination`, paths traced on every change. */
export const cable: ModelDef = defineModel({
  label: 'dcim.cable',
  endpoint: 'cables',
  verboseName: 'cable',
  fields: {
    // a plain string validated against CableTypeChoices ('' allowed)
    type: f.choice(CABLE_TYPE, { blank: true, plain: true }),
    a_terminations: f.json({ virtual: true, label: 'A terminations' }),
    b_terminations: f.json({ virtual: true, label: 'B terminations' }),
    status: f.choice(LINK_STATUS, { default: 'connected', nullable: false }),
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    label: f.string(100),
    color: blankColor(),
    length: f.decimal({ maxDigits: 8, decimalPlaces: 2, nullable: true }),
    length_unit: f.choice(CABLE_LENGTH_UNIT, { blank: true, singleFilter: true }),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['label'],
  display: (row) => (row.label ? String(row.label) : `#${String(row.id)}`),
  ordering: ['id'],
  search: ['label', 'description'],
  skipFilters: ['color'],
  filters: (ctx) => cableFilters(ctx),
  hooks: {
    validate: async (row, existing, wctx, body) => {
      // Cable.clean()
      if (row.length !== null && row.length !== undefined && !row.length_unit) {
        throw new ValidationError({ __all__: ['Must specify a unit when setting a cable length'] });
      }
      const given = await endsOf(wctx, body ?? {});
      const stored = existing ? await storedEnds(wctx.service, wctx.tx, Number(existing.id)) : { A: [], B: [] };
      await checkEnds(wctx, existing ? Number(existing.id) : null, given.A ?? stored.A, given.B ?? stored.B, !!(given.A || given.B));
    },
    // Cable.save(): no unit without a length
    beforeSave: (columns, existing) => {
      const merged = { ...(existing ?? {}), ...columns };
      if ((merged.length === null || merged.length === undefined) && merged.length_unit) columns.length_unit = '';
    },
    afterSave: async (saved, wctx) => {
      for (const { id, body, existing } of saved) {
        const given = await endsOf(wctx, body);
        let statusChanged = false;
        if (existing) {
          const [now] = await wctx.tx.query(sql`SELECT status FROM ${raw(wctx.service.db.table('cable'))} WHERE id = ${id}`);
          statusChanged = now?.status !== existing.status;
        }
        await saveEnds(wctx, id, given, statusChanged);
      }
    },
    beforeDelete: (ids, wctx) => deleteEnds(wctx, ids),
    decorate: async (rows, out, { brief, service, q, base, wants }) => {
      if (brief) return;
      const shown = (k: string) => wants?.(k) !== false;
      rows.forEach((r, i) => {
        if ('type' in out[i]) out[i].type = r.type ?? '';
      });
      if (!shown('a_terminations') && !shown('b_terminations')) return;
      const terms = await q.query(
        sql`SELECT cable, cable_end, termination_type, termination_id FROM ${raw(service.db.table(CABLE_TERMINATION_TABLE))} WHERE cable = ANY(${rows.map((r) => r.id)}::bigint[]) ORDER BY id`,
      );
      const nested = await nestedNodes(service, terms.map((t) => node(String(t.termination_type), Number(t.termination_id))), base ?? '', q);
      rows.forEach((r, i) => {
        for (const [end, field] of [['A', 'a_terminations'], ['B', 'b_terminations']] as const) {
          if (!(field in out[i])) continue;
          out[i][field] = terms
            .filter((t) => Number(t.cable) === Number(r.id) && t.cable_end === end)
            .map((t) => ({
              object_type: t.termination_type,
              object_id: Number(t.termination_id),
              object: nested.get(node(String(t.termination_type), Number(t.termination_id))) ?? null,
            }));
        }
      });
    },
  },
});

/**
 * Cables with a termination on a device matching `deviceCondition` (over
 * alias `d`) or on a power feed matching `feedCondition` (over `pf` and its
 * panel `pp`): the device/rack/location/site filters.
 */
function terminatedOn(ctx: ServiceContext, deviceCondition: Sql, feedCondition: Sql | null): Sql {
  const terms = raw(ctx.db.table(CABLE_TERMINATION_TABLE));
  const devices = raw(ctx.db.table('device'));
  const parts: Sql[] = Object.entries(TERMINATION_TABLES)
    .filter(([type]) => type !== 'dcim.powerfeed')
    .map(
      ([type, table]) =>
        sql`(ct.termination_type = ${type} AND ct.termination_id IN (SELECT c.id FROM ${raw(ctx.db.table(table))} c JOIN ${devices} d ON d.id = c.device_id WHERE ${deviceCondition}))`,
    );
  if (feedCondition) {
    parts.push(
      sql`(ct.termination_type = 'dcim.powerfeed' AND ct.termination_id IN (SELECT pf.id FROM ${raw(ctx.db.table('power_feed'))} pf JOIN ${raw(ctx.db.table('power_panel'))} pp ON pp.id = pf.power_panel_id WHERE ${feedCondition}))`,
    );
  }
  return sql`EXISTS (SELECT 1 FROM ${terms} ct WHERE ct.cable = t.id AND (${or(parts)}))`;
}

/** NetBox's CableFilterSet beyond the generated filters. */
function cableFilters(ctx: ServiceContext): FilterDef[] {
  const terms = raw(ctx.db.table(CABLE_TERMINATION_TABLE));
  const ints = (values: string[]) => values.filter((v) => /^\d{1,15}$/.test(v)).map(Number);
  const byDevice = (name: string, deviceColumn: string, label: string, key: string, feedColumn: string | null): FilterDef => {
    const resolve = keyResolver(ctx, label, key, false);
    return {
      kind: 'method',
      name,
      valueType: key === 'id' ? 'integer' : 'string',
      apply: async (values) => {
        const ids = [...(await resolve(values)).values()].flat();
        const feed = feedColumn ? sql`${raw(feedColumn)} = ANY(${ids}::bigint[])` : null;
        return terminatedOn(ctx, sql`${raw(deviceColumn)} = ANY(${ids}::bigint[])`, feed);
      },
    };
  };
  const defs: FilterDef[] = [
    { kind: 'method', name: 'color', lookups: ['n'], apply: (values, lookup) => excludedBy(lookup, sql`t.color = ANY(${values.filter((v) => COLOR_CHOICES.some(([c]) => c === v))}::text[])`) },
    { kind: 'method', name: 'termination_a_type', lookups: ['n'], apply: (values, lookup) => excludedBy(lookup, sql`EXISTS (SELECT 1 FROM ${terms} ct WHERE ct.cable = t.id AND ct.termination_type = ANY(${values}::text[]))`) },
    { kind: 'method', name: 'termination_b_type', lookups: ['n'], apply: (values, lookup) => excludedBy(lookup, sql`EXISTS (SELECT 1 FROM ${terms} ct WHERE ct.cable = t.id AND ct.termination_type = ANY(${values}::text[]))`) },
    { kind: 'method', name: 'termination_a_id', valueType: 'integer', apply: (values) => sql`EXISTS (SELECT 1 FROM ${terms} ct WHERE ct.cable = t.id AND ct.cable_end = 'A' AND ct.termination_id = ANY(${ints(values)}::bigint[]))` },
    { kind: 'method', name: 'termination_b_id', valueType: 'integer', apply: (values) => sql`EXISTS (SELECT 1 FROM ${terms} ct WHERE ct.cable = t.id AND ct.cable_end = 'B' AND ct.termination_id = ANY(${ints(values)}::bigint[]))` },
    {
      kind: 'boolean',
      name: 'unterminated',
      expr: sql`(NOT EXISTS (SELECT 1 FROM ${terms} ct WHERE ct.cable = t.id AND ct.cable_end = 'A') OR NOT EXISTS (SELECT 1 FROM ${terms} ct WHERE ct.cable = t.id AND ct.cable_end = 'B'))`,
    },
    byDevice('device_id', 'd.id', 'dcim.device', 'id', null),
    byDevice('device', 'd.id', 'dcim.device', 'name', null),
    byDevice('rack_id', 'd.rack_id', 'dcim.rack', 'id', 'pf.rack_id'),
    byDevice('rack', 'd.rack_id', 'dcim.rack', 'name', 'pf.rack_id'),
    byDevice('location_id', 'd.location_id', 'dcim.location', 'id', 'pp.location_id'),
    byDevice('location', 'd.location_id', 'dcim.location', 'name', 'pp.location_id'),
    byDevice('site_id', 'd.site_id', 'dcim.site', 'id', 'pp.site_id'),
    byDevice('site', 'd.site_id', 'dcim.site', 'slug', 'pp.site_id'),
  ];
  for (const type of [...Object.keys(TERMINATION_TABLES), CIRCUIT_TERMINATION]) {
    defs.push({
      kind: 'method',
      name: `${type.split('.')[1]}_id`,
      valueType: 'integer',
      apply: (values) => sql`EXISTS (SELECT 1 FROM ${terms} ct WHERE ct.cable = t.id AND ct.termination_type = ${type} AND ct.termination_id = ANY(${ints(values)}::bigint[]))`,
    });
  }
  return defs;
}
