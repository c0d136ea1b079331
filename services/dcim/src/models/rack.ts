import { ValidationError } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { defineModel, f, TENANT_GROUP_HOPS, type ModelDef, type Row, type WriteContext } from '@inventory/rest';
import { RACK_DIMENSION_UNIT, RACK_STATUS, RACK_TYPE, RACK_WIDTH, WEIGHT_UNIT } from './choices';
import { location } from './location';
import { site } from './site';
import { SITE_SCOPE_HOPS } from '@inventory/refs';

/** NetBox's RACK_U_HEIGHT_MAX. */
export const RACK_U_HEIGHT_MAX = 100;
/** PositiveSmallIntegerField's upper bound. */
const SMALLINT_MAX = 32767;

export const rack: ModelDef = defineModel({
  label: 'dcim.rack',
  endpoint: 'racks',
  verboseName: 'rack',
  fields: {
    name: f.name(100, { natural: true }),
    facility_id: f.string(50, { nullable: true, label: 'facility ID' }),
    // NetBox's site-scope filters: site, site_id, and the site's region and group at any depth
    site: f.fk('dcim.site', 'PROTECT', { required: true, hops: SITE_SCOPE_HOPS }),
    // a tree filter: ?location=<slug> matches racks in the location's descendants too
    location: f.fk('dcim.location', 'SET_NULL', { treeFilter: true }),
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    status: f.choice(RACK_STATUS, { default: 'active', nullable: false }),
    role: f.fk('dcim.rackrole', 'PROTECT', { nullable: true }),
    serial: f.string(50, { label: 'serial number', iexactFilter: true }),
    asset_tag: f.string(50, { nullable: true, unique: 'Rack with this Asset tag already exists.' }),
    type: f.choice(RACK_TYPE, { blank: true }),
    width: f.choice(RACK_WIDTH, { default: 19, nullable: false }),
    u_height: f.integer({ default: 42, nullable: false, min: 1, max: RACK_U_HEIGHT_MAX }),
    starting_unit: f.integer({ default: 1, nullable: false, min: 1, max: SMALLINT_MAX }),
    weight: f.decimal({ maxDigits: 8, decimalPlaces: 2, nullable: true }),
    max_weight: f.integer({ nullable: true, min: 0 }),
    weight_unit: f.choice(WEIGHT_UNIT, { blank: true, singleFilter: true }),
    desc_units: f.boolean(false),
    outer_width: f.integer({ nullable: true, min: 0, max: SMALLINT_MAX }),
    outer_depth: f.integer({ nullable: true, min: 0, max: SMALLINT_MAX }),
    outer_unit: f.choice(RACK_DIMENSION_UNIT, { blank: true, singleFilter: true }),
    mounting_depth: f.integer({ nullable: true, min: 0, max: SMALLINT_MAX }),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['name', 'device_count'],
  display: (row) => (row.facility_id ? `${String(row.name)} (${String(row.facility_id)})` : String(row.name)),
  ordering: ['site', 'location', 'name', 'id'],
  search: ['name', 'facility_id', 'serial', 'asset_tag', 'description', 'comments'],
  unique: [
    { fields: ['location', 'name'], message: 'Rack with this Location and Name already exists.' },
    { fields: ['location', 'facility_id'], message: 'Rack with this Location and Facility ID already exists.' },
  ],
  counts: {
    device_count: { model: 'dcim.device', field: 'rack' },
    powerfeed_count: { model: 'dcim.powerfeed', field: 'rack' },
  },
  hooks: {
    validate: (row, _existing, wctx) => checkRack(row, wctx),
    beforeSave: (columns, existing) => clearOuterUnit(columns, existing),
  },
  // NetBox's Contacts filters (contact, contact_role, contact_group), through tenancy's assignments
  contacts: true,
});

const isSet = (v: unknown) => v !== null && v !== undefined;
/** Django's truth test of a number (0 and null are false). */
const truthy = (v: unknown) => isSet(v) && Number(v) !== 0;

/** NetBox's Rack.clean() (with WeightMixin's): each rule refuses on its own, in NetBox's order. */
async function checkRack(row: Row, wctx: WriteContext): Promise<void> {
  if (truthy(row.weight) && !row.weight_unit) throw new ValidationError({ __all__: ['Must specify a unit when setting a weight'] });
  await checkLocationSite(row, wctx);
  if ((isSet(row.outer_width) || isSet(row.outer_depth)) && !row.outer_unit) {
    throw new ValidationError({ __all__: ['Must specify a unit when setting an outer width/depth'] });
  }
  if (truthy(row.max_weight) && !row.weight_unit) throw new ValidationError({ __all__: ['Must specify a unit when setting a maximum weight'] });
}

/** The location (if any) belongs to the rack's site. */
async function checkLocationSite(row: Row, wctx: WriteContext): Promise<void> {
  if (!isSet(row.location_id)) return;
  const db = wctx.service.db;
  const [hit] = await wctx.tx.query(
    sql`SELECT l.site_id, s.name AS site FROM ${raw(db.table(location.table))} l, ${raw(db.table(site.table))} s
         WHERE l.id = ${row.location_id} AND s.id = ${row.site_id}`,
  );
  if (hit && Number(hit.site_id) !== Number(row.site_id)) {
    throw new ValidationError({ __all__: [`Assigned location must belong to parent site (${String(hit.site)}).`] });
  }
}

/** NetBox's Rack.save(): no outer unit without an outer width or depth. */
function clearOuterUnit(columns: Row, existing: Row | null): void {
  const merged = { ...(existing ?? {}), ...columns };
  if (!isSet(merged.outer_width) && !isSet(merged.outer_depth) && merged.outer_unit) columns.outer_unit = '';
}
