import { ValidationError } from '@inventory/core';
import { sql, raw, type FilterDef, type Sql } from '@inventory/filtering';
import { defineModel, f, keyResolver, TENANT_GROUP_HOPS, type ModelDef, type ServiceContext } from '@inventory/rest';
import { POWERFEED_PHASE, POWERFEED_STATUS, POWERFEED_SUPPLY, POWERFEED_TYPE } from './cable-choices';
import { cabledFields, cabledFilters, checkCabled, decorateCabled, deleteCabled, endpointFields, occupiedField } from '../cabling/cabled';

const SMALLINT_MIN = -32768;
const SMALLINT_MAX = 32767;

/** NetBox's PowerFeed: cabled, and a path endpoint (its far end is a device's power port). */
export const powerFeed: ModelDef = defineModel({
  label: 'dcim.powerfeed',
  endpoint: 'power-feeds',
  table: 'power_feed',
  verboseName: 'power feed',
  fields: {
    power_panel: f.fk('dcim.powerpanel', 'PROTECT', { required: true, filterKey: null }),
    rack: f.fk('dcim.rack', 'PROTECT', { nullable: true, filterKey: null }),
    name: f.name(100),
    status: f.choice(POWERFEED_STATUS, { default: 'active', nullable: false }),
    type: f.choice(POWERFEED_TYPE, { default: 'primary', nullable: false, singleFilter: true }),
    supply: f.choice(POWERFEED_SUPPLY, { default: 'ac', nullable: false, singleFilter: true }),
    phase: f.choice(POWERFEED_PHASE, { default: 'single-phase', nullable: false, singleFilter: true }),
    voltage: f.integer({ default: 120, nullable: false, min: SMALLINT_MIN, max: SMALLINT_MAX }),
    amperage: f.integer({ default: 15, nullable: false, min: 1, max: SMALLINT_MAX }),
    max_utilization: f.integer({ default: 80, nullable: false, min: 1, max: 100 }),
    ...cabledFields(),
    ...endpointFields(),
    description: f.description(),
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    comments: f.comments(),
    _occupied: occupiedField(),
  },
  brief: ['name', 'cable', '_occupied'],
  display: (row) => String(row.name),
  ordering: ['power_panel', 'name'],
  search: ['name', 'description', 'comments'],
  unique: [{ fields: ['power_panel', 'name'], message: 'Power feed with this Power panel and Name already exists.' }],
  filters: (ctx) => [...panelSiteFilters(ctx), ...cabledFilters(ctx, true), searchFilter(ctx)],
  hooks: {
    decorate: decorateCabled(true),
    beforeDelete: deleteCabled('dcim.powerfeed'),
    validate: async (row, _existing, wctx) => {
      checkCabled(row);
      // PowerFeed.clean()
      if (row.rack_id !== null && row.rack_id !== undefined) {
        const db = wctx.service.db;
        const [hit] = await wctx.tx.query(
          sql`SELECT r.name AS rack, r.site_id AS rack_site_id, rs.name AS rack_site, p.name AS panel, p.site_id AS panel_site_id, ps.name AS panel_site
                FROM ${raw(db.table('rack'))} r JOIN ${raw(db.table('site'))} rs ON rs.id = r.site_id,
                     ${raw(db.table('power_panel'))} p JOIN ${raw(db.table('site'))} ps ON ps.id = p.site_id
               WHERE r.id = ${row.rack_id} AND p.id = ${row.power_panel_id}`,
        );
        if (hit && String(hit.rack_site_id) !== String(hit.panel_site_id)) {
          throw new ValidationError({
            __all__: [`Rack ${String(hit.rack)} (${String(hit.rack_site)}) and power panel ${String(hit.panel)} (${String(hit.panel_site)}) are in different sites.`],
          });
        }
      }
      if (Number(row.voltage) === 0) throw new ValidationError({ voltage: ['This value may not be [0].'] });
      if (row.supply === 'ac' && Number(row.voltage) < 0) throw new ValidationError({ voltage: ['Voltage cannot be negative for AC supply'] });
    },
  },
});

/** Site scope through the power panel: `region(_id)`, `site_group(_id)` at any depth, `site(_id)`. */
function panelSiteFilters(ctx: ServiceContext): FilterDef[] {
  const panels = raw(ctx.db.table('power_panel'));
  const sites = raw(ctx.db.table('site'));
  const panelSite = sql`(SELECT p.site_id FROM ${panels} p WHERE p.id = t.power_panel_id)`;
  const siteColumn = (c: string): Sql => sql`(SELECT s.${raw(c)} FROM ${panels} p JOIN ${sites} s ON s.id = p.site_id WHERE p.id = t.power_panel_id)`;
  const rel = (name: string, expr: Sql, label: string, key: string, tree = false): FilterDef => ({
    kind: 'relation',
    name,
    expr,
    keyType: key === 'id' ? 'integer' : 'string',
    resolve: keyResolver(ctx, label, key, tree),
  });
  return [
    rel('site_id', panelSite, 'dcim.site', 'id'),
    rel('site', panelSite, 'dcim.site', 'slug'),
    rel('region_id', siteColumn('region_id'), 'dcim.region', 'id', true),
    rel('region', siteColumn('region_id'), 'dcim.region', 'slug', true),
    rel('site_group_id', siteColumn('group_id'), 'dcim.sitegroup', 'id', true),
    rel('site_group', siteColumn('group_id'), 'dcim.sitegroup', 'slug', true),
  ];
}

/** `q`: name, description, comments and the power panel's name. */
function searchFilter(ctx: ServiceContext): FilterDef {
  const panels = raw(ctx.db.table('power_panel'));
  return {
    kind: 'method',
    name: 'q',
    apply: (values) => {
      const text = values[values.length - 1]?.trim();
      if (!text) return undefined;
      const pattern = `%${text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
      return sql`(t.name ILIKE ${pattern} OR t.description ILIKE ${pattern} OR t.comments ILIKE ${pattern}
        OR EXISTS (SELECT 1 FROM ${panels} p WHERE p.id = t.power_panel_id AND p.name ILIKE ${pattern}))`;
    },
  };
}
