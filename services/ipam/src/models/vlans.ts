import { SITE_SCOPE_HOPS } from '@inventory/refs';
import { ValidationError } from '@inventory/core';
import { sql, raw, type FilterDef, type Sql } from '@inventory/filtering';
import {
  defineModel,
  f,
  ilike,
  memo,
  noteTouched,
  projection,
  removeGenericReferrers,
  represent,
  searchFilter,
  TENANT_GROUP_HOPS,
  type ModelDef,
  type Queryable,
  type Row,
  type ServiceContext,
  type WriteContext,
} from '@inventory/rest';
import { VLAN_STATUS } from './choices';
import { terminatedOn } from './l2vpn';

/** What a VLAN group may be scoped to, and the filter (`?site=<id>`) that finds the groups scoped to each. */
export const VLAN_GROUP_SCOPES: Record<string, string> = {
  'dcim.region': 'region',
  'dcim.sitegroup': 'sitegroup',
  'dcim.site': 'site',
  'dcim.location': 'location',
  'dcim.rack': 'rack',
  'virtualization.clustergroup': 'clustergroup',
  'virtualization.cluster': 'cluster',
};
const isScope = (label: string) => label in VLAN_GROUP_SCOPES;

export const VID_MIN = 1;
export const VID_MAX = 4094;

/** `utilization` as NetBox renders its float: two decimals at most, always a point (`"0.0"`, `"2.44"`, `"100.0"`). */
export function utilization(count: number, minVid: number, maxVid: number): string {
  const v = Math.round((count / (maxVid - minVid + 1)) * 100 * 100) / 100;
  return Number.isInteger(v) ? `${v}.0` : String(v);
}

/** A set of VLANs, unique by VID and name inside it, optionally scoped to a place or a cluster. */
export const vlanGroup: ModelDef = defineModel({
  label: 'ipam.vlangroup',
  endpoint: 'vlan-groups',
  table: 'vlan_group',
  verboseName: 'VLAN group',
  fields: {
    name: f.name(100),
    slug: f.slug(100),
    scope_type: f.contentType({ nullable: true, allowed: isScope }),
    scope_id: { type: 'bigint', nullable: true, min: 0, max: Number.MAX_SAFE_INTEGER },
    scope: f.generic('scope_type', 'scope_id', { allowed: isScope }),
    min_vid: f.integer({ min: VID_MIN, max: VID_MAX, default: VID_MIN, label: 'minimum VLAN ID' }),
    max_vid: f.integer({ min: VID_MIN, max: VID_MAX, default: VID_MAX, label: 'maximum VLAN ID' }),
    description: f.description(),
    // vlan_count / (max_vid - min_vid + 1), in percent (decorate)
    utilization: f.string(10, { readOnly: true, virtual: true, filter: false, orderable: false }),
  },
  brief: ['name', 'slug', 'vlan_count'],
  display: (row) => String(row.name),
  ordering: ['name', 'id'],
  search: ['name', 'description'],
  counts: { vlan_count: { model: 'ipam.vlan', field: 'group' } },
  // NULLs are distinct: two unscoped groups may share a name or slug, as in NetBox
  unique: [
    { fields: ['scope_type', 'scope_id', 'name'], message: 'VLAN group with this Scope type, Scope id and Name already exists.' },
    { fields: ['scope_type', 'scope_id', 'slug'], message: 'VLAN group with this Scope type, Scope id and Slug already exists.' },
  ],
  filters: (ctx) => scopeFilters(ctx),
  hooks: {
    validate: (row) => {
      // NetBox's VLANGroup.clean()
      const hasType = row.scope_type !== null && row.scope_type !== undefined && row.scope_type !== '';
      const hasId = row.scope_id !== null && row.scope_id !== undefined;
      if (hasType && !hasId) throw new ValidationError({ __all__: ['Cannot set scope_type without scope_id.'] });
      if (hasId && !hasType) throw new ValidationError({ __all__: ['Cannot set scope_id without scope_type.'] });
      if (Number(row.max_vid) < Number(row.min_vid)) {
        throw new ValidationError({ max_vid: ['Maximum child VID must be greater than or equal to minimum child VID'] });
      }
    },
    decorate: async (rows, out, { brief, q, service }) => {
      if (brief) return;
      // the list and detail queries count the VLANs; a fresh object (a POST's answer, an event) counts them here
      const missing = rows.filter((_, i) => out[i].vlan_count === undefined).map((r) => Number(r.id));
      const counted = new Map<number, number>();
      if (missing.length) {
        const found = await q.query(
          sql`SELECT group_id, count(*) AS n FROM ${raw(service.db.table('vlan'))} WHERE group_id = ANY(${missing}::bigint[]) GROUP BY group_id`,
        );
        for (const r of found) counted.set(Number(r.group_id), Number(r.n));
      }
      rows.forEach((row, i) => {
        const count = out[i].vlan_count === undefined ? (counted.get(Number(row.id)) ?? 0) : Number(out[i].vlan_count);
        out[i].utilization = utilization(count, Number(row.min_vid), Number(row.max_vid));
      });
    },
  },
});

/** `?region=<id>` … `?cluster=<id>`: the groups scoped to exactly that object (no hierarchy), as NetBox. */
function scopeFilters(ctx: ServiceContext): FilterDef[] {
  void ctx;
  return Object.entries(VLAN_GROUP_SCOPES).map(([label, name]) => ({
    kind: 'method',
    name,
    valueType: 'integer',
    apply: (values: string[]) => {
      const id = values[values.length - 1];
      if (id === undefined || !/^\d{1,15}$/.test(id)) throw new ValidationError({ [name]: ['Enter a whole number.'] });
      return sql`(t.scope_type = ${label} AND t.scope_id = ${Number(id)}::bigint)`;
    },
  }));
}

/** A layer-two network: a VID, unique inside its group (if any). */
export const vlan: ModelDef = defineModel({
  label: 'ipam.vlan',
  endpoint: 'vlans',
  verboseName: 'VLAN',
  fields: {
    site: f.fk('dcim.site', 'PROTECT', { nullable: true, hops: SITE_SCOPE_HOPS }),
    group: f.fk('ipam.vlangroup', 'PROTECT', { nullable: true }),
    vid: f.integer({ required: true, min: VID_MIN, max: VID_MAX, label: 'VLAN ID' }),
    name: f.name(64),
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    // the seed's VLAN status: an integer value (1 active, 2 reserved, 3 deprecated); writes also take the label's slug
    status: f.choice(VLAN_STATUS, { default: 1 }),
    role: f.fk('ipam.role', 'SET_NULL'),
    description: f.description(),
    comments: f.comments(),
    // the VLAN's L2VPN termination (one at most), nested (decorate)
    l2vpn_termination: f.json({ readOnly: true, virtual: true, filter: false, orderable: false, label: 'L2VPN termination' }),
    // the seed's VLAN shape also carries `display_name`: the display again (decorate)
    display_name: f.string(200, { readOnly: true, virtual: true, filter: false, orderable: false }),
  },
  brief: ['vid', 'name'],
  display: (row) => `${String(row.name)} (${String(row.vid)})`,
  ordering: ['site', 'group', 'vid', 'id'],
  counts: { prefix_count: { model: 'ipam.prefix', field: 'vlan' } },
  unique: [
    { fields: ['group', 'vid'], message: 'VLAN with this Group and VLAN ID already exists.' },
    { fields: ['group', 'name'], message: 'VLAN with this Group and Name already exists.' },
  ],
  // `q`: name or description, or the VID when `q` is a number
  filters: (ctx) => [
    searchFilter((pattern, text) => [
      ilike(sql`t.name`, pattern),
      ilike(sql`t.description`, pattern),
      ...(/^\d{1,9}$/.test(text) ? [sql`t.vid = ${Number(text)}`] : []),
    ]),
    ...availableFilters(ctx),
    terminatedOn(ctx, 'l2vpn_id', 'ipam.vlan', 'id'),
    terminatedOn(ctx, 'l2vpn', 'ipam.vlan', 'identifier'),
  ],
  hooks: {
    validate: (row, _existing, wctx) => checkGroup(row, wctx),
    decorate: async (rows, out, c) => {
      out.forEach((rep, i) => 'display_name' in rep && (rep.display_name = `${String(rows[i].name)} (${String(rows[i].vid)})`));
      if (!c.brief && (c.wants?.('l2vpn_termination') ?? true)) await decorateTerminations(rows, out, c);
    },
    // the VLAN's L2VPN termination goes with it (NetBox's GenericRelation)
    beforeDelete: async (ids, wctx) => {
      const terms = wctx.service.models.get('vpn.l2vpntermination');
      if (!terms) return;
      const deleted = await removeGenericReferrers(wctx.service, terms, 'assigned_object_type', 'assigned_object_id', 'ipam.vlan', ids, wctx);
      if (deleted.length) noteTouched(wctx, terms, { deleted });
    },
  },
});

/** `l2vpn_termination`: each VLAN's L2VPN termination in its nested form, or null; one query for the page. */
async function decorateTerminations(rows: Row[], out: Row[], c: { service: ServiceContext; q: Queryable; base: string }): Promise<void> {
  const model = c.service.models.get('vpn.l2vpntermination');
  if (!model || !rows.length) return;
  const found = await c.q.query(
    sql`SELECT * FROM ${raw(c.service.db.table(model.table))} WHERE assigned_object_type = 'ipam.vlan' AND assigned_object_id = ANY(${rows.map((r) => Number(r.id))}::bigint[]) ORDER BY id`,
  );
  const nested = found.length ? await represent(c.service, model, found, { mode: 'nested', base: c.base, q: c.q }) : [];
  const byVlan = new Map<number, Row>();
  found.forEach((t, i) => byVlan.set(Number(t.assigned_object_id), nested[i]));
  rows.forEach((row, i) => {
    if ('l2vpn_termination' in out[i]) out[i].l2vpn_termination = byVlan.get(Number(row.id)) ?? null;
  });
}

/** NetBox's VLAN.clean(): a grouped VLAN's site is its group's scope, and its VID is inside the group's range. */
async function checkGroup(row: Row, wctx: WriteContext): Promise<void> {
  if (row.group_id === null || row.group_id === undefined) return;
  const ctx = wctx.service;
  const group = await memo(wctx, `ipam.vlangroup:${String(row.group_id)}`, async () => {
    const [g] = await wctx.tx.query(sql`SELECT * FROM ${raw(ctx.db.table(vlanGroup.table))} WHERE id = ${row.group_id}`);
    return g as Row | undefined;
  });
  if (!group) return;
  if (row.site_id !== null && row.site_id !== undefined && !(group.scope_type === 'dcim.site' && Number(group.scope_id) === Number(row.site_id))) {
    const [names] = await wctx.tx.query(
      sql`SELECT (SELECT nested->>'display' FROM ${projection(ctx, 'dcim.site')} WHERE id = ${row.site_id}) AS site,
                 ${group.scope_type ? scopeDisplay(ctx, String(group.scope_type), Number(group.scope_id)) : sql`NULL`} AS scope`,
    );
    throw new ValidationError({
      __all__: [
        `VLAN is assigned to group ${String(group.name)} (scope: ${names?.scope ?? 'None'}); cannot also assign to site ${names?.site ?? String(row.site_id)}.`,
      ],
    });
  }
  const vid = Number(row.vid);
  if (vid < Number(group.min_vid) || vid > Number(group.max_vid)) {
    throw new ValidationError({ vid: [`VID must be between ${String(group.min_vid)} and ${String(group.max_vid)} for VLANs in group ${String(group.name)}`] });
  }
}

/** The display of a group's scope object, from this service's projection of its model. */
function scopeDisplay(ctx: ServiceContext, label: string, id: number) {
  return sql`(SELECT nested->>'display' FROM ${projection(ctx, label)} WHERE id = ${id})`;
}

/**
 * `available_at_site`, `available_on_device`, `available_on_virtualmachine`
 * (NetBox's VLANQuerySet.get_for_site / get_for_device /
 * get_for_virtualmachine): the VLANs usable there. Those of groups scoped to
 * the place (the site, its region and site group at any depth up; a device's
 * location at any depth up and its rack; a machine's cluster and cluster
 * group), those of the site itself, and the global ones (no site, and no
 * group or an unscoped one). Read from this service's projections of dcim's
 * and virtualization's objects.
 */
function availableFilters(ctx: ServiceContext): FilterDef[] {
  const p = (label: string) => projection(ctx, label);
  const groups = raw(ctx.db.table(vlanGroup.table));
  /** Ancestors (and itself) of the tree node `id` of `label`, as a bigint[]. */
  const upFrom = (label: string, id: Sql) => sql`COALESCE((SELECT n.path FROM ${p(label)} n WHERE n.id = ${id} AND NOT n.deleted), '{}')`;
  const siteData = (site: Sql, key: string) => sql`(SELECT (s.data->>${key})::bigint FROM ${p('dcim.site')} s WHERE s.id = ${site})`;
  const siteScopes = (site: Sql) => sql`(g.scope_type = 'dcim.site' AND g.scope_id = ${site})
    OR (g.scope_type = 'dcim.region' AND g.scope_id = ANY(${upFrom('dcim.region', siteData(site, 'region'))}))
    OR (g.scope_type = 'dcim.sitegroup' AND g.scope_id = ANY(${upFrom('dcim.sitegroup', siteData(site, 'group'))}))`;
  const usable = (scopes: Sql, site: Sql) => sql`(
    t.group_id IN (SELECT g.id FROM ${groups} g WHERE ${scopes})
    OR t.site_id = ${site}
    OR (t.site_id IS NULL AND (t.group_id IS NULL OR t.group_id IN (SELECT g.id FROM ${groups} g WHERE g.scope_id IS NULL))))`;
  const one = (name: string, label: string, build: (id: number) => Sql): FilterDef => ({
    kind: 'method',
    name,
    valueType: 'integer',
    apply: async (values) => {
      const v = values[values.length - 1] ?? '';
      const [hit] = /^\d{1,15}$/.test(v) ? await ctx.db.query(sql`SELECT id FROM ${p(label)} WHERE id = ${Number(v)} AND NOT deleted`) : [];
      if (!hit) throw new ValidationError({ [name]: ['Select a valid choice. That choice is not one of the available choices.'] });
      return build(Number(v));
    },
  });
  return [
    one('available_at_site', 'dcim.site', (id) => usable(siteScopes(sql`${id}::bigint`), sql`${id}::bigint`)),
    one('available_on_device', 'dcim.device', (id) => {
      const device = (key: string) => sql`(SELECT (d.data->>${key})::bigint FROM ${p('dcim.device')} d WHERE d.id = ${id})`;
      const site = device('site');
      return usable(
        sql`${siteScopes(site)}
          OR (g.scope_type = 'dcim.location' AND g.scope_id = ANY(${upFrom('dcim.location', device('location'))}))
          OR (g.scope_type = 'dcim.rack' AND g.scope_id = ${device('rack')})`,
        site,
      );
    }),
    one('available_on_virtualmachine', 'virtualization.virtualmachine', (id) => {
      const cluster = sql`(SELECT (m.data->>'cluster')::bigint FROM ${p('virtualization.virtualmachine')} m WHERE m.id = ${id})`;
      const clusterData = (key: string) => sql`(SELECT (c.data->>${key})::bigint FROM ${p('virtualization.cluster')} c WHERE c.id = ${cluster})`;
      const site = sql`COALESCE((SELECT (m.data->>'site')::bigint FROM ${p('virtualization.virtualmachine')} m WHERE m.id = ${id}), ${clusterData('site')})`;
      return usable(
        sql`(g.scope_type = 'virtualization.cluster' AND g.scope_id = ${cluster})
          OR (g.scope_type = 'virtualization.clustergroup' AND g.scope_id = ${clusterData('group')})
          OR ${siteScopes(site)}`,
        site,
      );
    }),
  ];
}
