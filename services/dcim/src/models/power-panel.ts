import { ValidationError } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { defineModel, f, type ModelDef } from '@inventory/rest';
import { SITE_SCOPE_HOPS } from '@inventory/refs';

export const powerPanel: ModelDef = defineModel({
  label: 'dcim.powerpanel',
  endpoint: 'power-panels',
  table: 'power_panel',
  verboseName: 'power panel',
  fields: {
    site: f.fk('dcim.site', 'PROTECT', { required: true, hops: SITE_SCOPE_HOPS }),
    // NetBox's location_id is a tree filter; there is no slug variant
    location: f.fk('dcim.location', 'PROTECT', { nullable: true, treeFilter: true, filterKey: null }),
    name: f.name(100),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['name', 'powerfeed_count'],
  display: (row) => String(row.name),
  ordering: ['site', 'name'],
  search: ['name', 'description'],
  unique: [{ fields: ['site', 'name'], message: 'Power panel with this Site and Name already exists.' }],
  counts: { powerfeed_count: { model: 'dcim.powerfeed', field: 'power_panel' } },
  contacts: true,
  hooks: {
    // PowerPanel.clean(): the location is in the panel's site
    validate: async (row, _existing, wctx) => {
      if (row.location_id === null || row.location_id === undefined) return;
      const db = wctx.service.db;
      const [hit] = await wctx.tx.query(
        sql`SELECT l.name, l.site_id, ls.name AS location_site, s.name AS site FROM ${raw(db.table('location'))} l
              JOIN ${raw(db.table('site'))} ls ON ls.id = l.site_id, ${raw(db.table('site'))} s WHERE l.id = ${row.location_id} AND s.id = ${row.site_id}`,
      );
      if (hit && String(hit.site_id) !== String(row.site_id)) {
        throw new ValidationError({ __all__: [`Location ${String(hit.name)} (${String(hit.location_site)}) is in a different site than ${String(hit.site)}`] });
      }
    },
  },
});
