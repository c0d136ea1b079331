import { ValidationError } from '@inventory/core';
import { sql, raw, type FilterDef } from '@inventory/filtering';
import { defineModel, f, searchFilter, keyResolver, projection, TENANT_GROUP_HOPS, type Hop, type ModelDef, type Row, type ServiceContext, type WriteContext } from '@inventory/rest';
import { rack } from './rack';
import { site } from './site';

/** NetBox's site-scope and location filters of a reservation, through its rack (two relations away). */
const RACK_SCOPE_HOPS: Hop[] = [
  { name: 'site', via: 'site', to: 'dcim.site', key: 'slug' },
  { name: 'site_id', via: 'site', to: 'dcim.site', key: 'id' },
  { name: 'location', via: 'location', to: 'dcim.location', key: 'slug', tree: true },
  { name: 'location_id', via: 'location', to: 'dcim.location', key: 'id', tree: true },
];

export const rackReservation: ModelDef = defineModel({
  label: 'dcim.rackreservation',
  endpoint: 'rack-reservations',
  table: 'rack_reservation',
  verboseName: 'rack reservation',
  fields: {
    rack: f.fk('dcim.rack', 'CASCADE', { required: true, filterKey: null, hops: RACK_SCOPE_HOPS }),
    units: f.array('integer', { required: true }),
    // auth.user is the users service's: referenced through its projection, as a site's tenant
    // NetBox's nested reservation names its user by username alone
    user: f.fk('auth.user', 'PROTECT', { required: true, filterKey: 'username', readAs: 'username' }),
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    description: f.string(200, { required: true }),
    comments: f.comments(),
  },
  brief: ['user', 'units'],
  display: (_row, rep) => `Reservation for rack ${String((rep.rack as { display?: string } | null)?.display ?? '')}`,
  ordering: ['created', 'id'],
  search: ['description'],
  filters: (ctx) => [...siteScopeFilters(ctx), reservationSearch(ctx)],
  hooks: {
    validate: (row, existing, wctx) => checkUnits(row, existing, wctx),
    // the brief form has no nested rack to name: its display reads the racks (one query per page)
    decorate: async (rows, out, { brief, service, q, wants }) => {
      if (!brief || rows.length === 0 || wants?.('display') === false) return;
      const ids = [...new Set(rows.map((r) => Number(r.rack_id)).filter((id) => id > 0))];
      if (!ids.length) return;
      const racks = await q.query(sql`SELECT id, name, facility_id FROM ${raw(service.db.table(rack.table))} WHERE id = ANY(${ids}::bigint[])`);
      const byId = new Map(racks.map((r) => [Number(r.id), rack.display(r, r)]));
      rows.forEach((row, i) => {
        const name = byId.get(Number(row.rack_id));
        if (name !== undefined) out[i].display = `Reservation for rack ${name}`;
      });
    },
  },
});

/** `region`, `region_id`, `site_group`, `site_group_id`: the rack's site's region and group, at any depth. */
function siteScopeFilters(ctx: ServiceContext): FilterDef[] {
  const racks = raw(ctx.db.table(rack.table));
  const sites = raw(ctx.db.table(site.table));
  const via = (column: string) => sql`(SELECT s.${raw(column)} FROM ${racks} r JOIN ${sites} s ON s.id = r.site_id WHERE r.id = t.rack_id)`;
  const filter = (name: string, column: string, label: string, key: 'id' | 'slug'): FilterDef => ({
    kind: 'relation',
    name,
    expr: via(column),
    keyType: key === 'id' ? 'integer' : 'string',
    resolve: keyResolver(ctx, label, key, true),
  });
  return [
    filter('region', 'region_id', 'dcim.region', 'slug'),
    filter('region_id', 'region_id', 'dcim.region', 'id'),
    filter('site_group', 'group_id', 'dcim.sitegroup', 'slug'),
    filter('site_group_id', 'group_id', 'dcim.sitegroup', 'id'),
  ];
}

/** `q`: the rack's name and facility ID, the user's username, the description. */
function reservationSearch(ctx: ServiceContext): FilterDef {
  const racks = raw(ctx.db.table(rack.table));
  const users = projection(ctx, 'auth.user');
  return searchFilter((pattern) => [
    sql`t.description ILIKE ${pattern}`,
    sql`EXISTS (SELECT 1 FROM ${racks} r WHERE r.id = t.rack_id AND (r.name ILIKE ${pattern} OR r.facility_id ILIKE ${pattern}))`,
    sql`EXISTS (SELECT 1 FROM ${users} u WHERE u.id = t.user_id AND NOT u.deleted AND u.data->>'username' ILIKE ${pattern})`,
  ]);
}

/** The rack's units, NetBox's `Rack.units`: starting_unit … starting_unit + u_height − 1 (whole units; half units never hold a reservation). */
function rackUnits(r: Row): Set<number> {
  const start = Number(r.starting_unit);
  return new Set(Array.from({ length: Number(r.u_height) }, (_, i) => start + i));
}

/** NetBox's RackReservation.clean(): every unit exists in the rack and none is reserved by another reservation of it. */
async function checkUnits(row: Row, existing: Row | null, wctx: WriteContext): Promise<void> {
  const units = ((row.units ?? []) as unknown[]).map(Number);
  const negative = units.findIndex((u) => u < 0);
  if (negative >= 0) {
    throw new ValidationError({ units: [`Item ${negative + 1} in the array did not validate: Ensure this value is greater than or equal to 0.`] });
  }
  const db = wctx.service.db;
  const [r] = await wctx.tx.query(sql`SELECT u_height, starting_unit FROM ${raw(db.table(rack.table))} WHERE id = ${row.rack_id}`);
  if (!r) return;
  const valid = rackUnits(r);
  const invalid = units.filter((u) => !valid.has(u));
  if (invalid.length) throw new ValidationError({ units: [`Invalid unit(s) for ${Number(r.u_height)}U rack: ${invalid.join(', ')}`] });
  const others = await wctx.tx.query(
    sql`SELECT units FROM ${raw(db.table(rackReservation.table))} WHERE rack_id = ${row.rack_id} AND id <> ${existing ? Number(existing.id) : 0}`,
  );
  const reserved = new Set(others.flatMap((o) => ((o.units ?? []) as unknown[]).map(Number)));
  const conflicts = units.filter((u) => reserved.has(u));
  if (conflicts.length) throw new ValidationError({ units: [`The following units have already been reserved: ${conflicts.join(', ')}`] });
}
