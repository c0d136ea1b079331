import { ValidationError } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { capture, defineModel, f, noteTouched, TENANT_GROUP_HOPS, type ModelDef, type Row, type WriteContext } from '@inventory/rest';
import { LOCATION_STATUS } from './choices';
import { site } from './site';
import { SITE_SCOPE_HOPS } from '@inventory/refs';

export const location: ModelDef = defineModel({
  label: 'dcim.location',
  endpoint: 'locations',
  verboseName: 'location',
  fields: {
    name: f.name(100),
    slug: f.slug(100),
    // NetBox's site-scope filters: site, site_id, and the site's region and group at any depth
    site: f.fk('dcim.site', 'CASCADE', { required: true, hops: SITE_SCOPE_HOPS }),
    // a tree filter: ?parent=<slug> matches locations at any depth below the given ones
    parent: f.fk('dcim.location', 'CASCADE', { nullable: true, treeFilter: true }),
    status: f.choice(LOCATION_STATUS, { default: 'active', nullable: false }),
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    description: f.description(),
  },
  tree: true,
  brief: ['name', 'slug', 'rack_count', '_depth'],
  display: (row) => String(row.name),
  ordering: ['_tree'],
  search: ['name', 'description'],
  unique: [
    { fields: ['site', 'parent', 'name'], message: 'Location with this Site, Parent and Name already exists.' },
    { fields: ['site', 'name'], whenNull: ['parent'], message: 'A location with this name already exists within the specified site.' },
    { fields: ['site', 'parent', 'slug'], message: 'Location with this Site, Parent and Slug already exists.' },
    { fields: ['site', 'slug'], whenNull: ['parent'], message: 'A location with this slug already exists within the specified site.' },
  ],
  counts: {
    rack_count: { model: 'dcim.rack', field: 'location', tree: true },
    device_count: { model: 'dcim.device', field: 'location', tree: true },
  },
  hooks: {
    validate: (row, _existing, wctx) => checkParentSite(row, wctx),
    afterSave: async (saved, wctx) => {
      for (const s of saved) if (s.existing) await moveDescendants(s.id, s.columns, s.existing, wctx);
    },
  },
  // NetBox's Contacts filters (contact, contact_role, contact_group), through tenancy's assignments
  contacts: true,
});

/** NetBox's Location.clean(): the parent (if any) is in the same site. */
async function checkParentSite(row: Row, wctx: WriteContext): Promise<void> {
  if (row.parent_id === null || row.parent_id === undefined) return;
  const db = wctx.service.db;
  const [hit] = await wctx.tx.query(
    sql`SELECT p.name AS parent, p.site_id, s.name AS site FROM ${raw(db.table(location.table))} p, ${raw(db.table(site.table))} s
         WHERE p.id = ${row.parent_id} AND s.id = ${row.site_id}`,
  );
  if (hit && Number(hit.site_id) !== Number(row.site_id)) {
    throw new ValidationError({ __all__: [`Parent location (${String(hit.parent)}) must belong to the same site (${String(hit.site)}).`] });
  }
}

/**
 * A location that changes site takes its descendant locations along, and the
 * racks in it and in them (NetBox's Location.save()), each a change of its own.
 */
async function moveDescendants(id: number, columns: Row, existing: Row, wctx: WriteContext): Promise<void> {
  if (!('site_id' in columns) || Number(columns.site_id) === Number(existing.site_id)) return;
  const { tx, service } = wctx;
  const table = raw(service.db.table(location.table));
  const rows = await tx.query(sql`SELECT * FROM ${table} WHERE _path @> ARRAY[${id}]::bigint[] AND id <> ${id} ORDER BY id FOR UPDATE`);
  if (rows.length) await moveRows(location, rows, columns.site_id, wctx);
  // racks are declared after locations (and refer to them): found by label, not imported
  const rack = service.models.get('dcim.rack');
  if (!rack) return;
  const locations = [id, ...rows.map((r) => Number(r.id))];
  const racks = await tx.query(sql`SELECT * FROM ${raw(service.db.table(rack.table))} WHERE location_id = ANY(${locations}::bigint[]) ORDER BY id FOR UPDATE`);
  if (racks.length) await moveRows(rack, racks, columns.site_id, wctx);
}

/** Sets the site of stored rows, recorded as changes of their own. */
async function moveRows(model: ModelDef, rows: Row[], siteId: unknown, wctx: WriteContext): Promise<void> {
  const { tx, service } = wctx;
  await capture(service, model, wctx, rows);
  await tx.query(
    sql`UPDATE ${raw(service.db.table(model.table))} SET site_id = ${siteId}, _version = _version + 1, last_updated = now() WHERE id = ANY(${rows.map((r) => Number(r.id))}::bigint[])`,
  );
  noteTouched(wctx, model, { updated: rows });
}
