import { ValidationError } from '@inventory/core';
import { sql } from '@inventory/filtering';
import { defineModel, f, projection, TENANT_GROUP_HOPS, type ModelDef, type Row, type WriteContext } from '@inventory/rest';
import { CLUSTER_STATUS } from './choices';
import { SITE_SCOPE_HOPS } from '@inventory/refs';

export const clusterType: ModelDef = defineModel({
  label: 'virtualization.clustertype',
  endpoint: 'cluster-types',
  table: 'cluster_type',
  verboseName: 'cluster type',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    description: f.description(),
  },
  brief: ['name', 'slug', 'cluster_count'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'slug', 'description'],
  counts: { cluster_count: { model: 'virtualization.cluster', field: 'type' } },
});

export const clusterGroup: ModelDef = defineModel({
  label: 'virtualization.clustergroup',
  endpoint: 'cluster-groups',
  table: 'cluster_group',
  verboseName: 'cluster group',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    description: f.description(),
  },
  brief: ['name', 'slug', 'cluster_count'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'slug', 'description'],
  counts: { cluster_count: { model: 'virtualization.cluster', field: 'group' } },
  // NetBox's Contacts filters (contact, contact_role, contact_group), through tenancy's assignments
  contacts: true,
});

export const cluster: ModelDef = defineModel({
  label: 'virtualization.cluster',
  endpoint: 'clusters',
  verboseName: 'cluster',
  fields: {
    name: f.name(100),
    type: f.fk('virtualization.clustertype', 'PROTECT', { required: true }),
    group: f.fk('virtualization.clustergroup', 'PROTECT', { nullable: true }),
    status: f.choice(CLUSTER_STATUS, { default: 'active', nullable: false }),
    // NetBox's Tenancy filters: tenant, tenant_id, and the tenant's group at any depth
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    // site, site_id, and the site's region and group at any depth
    site: f.fk('dcim.site', 'PROTECT', { nullable: true, hops: SITE_SCOPE_HOPS }),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['name', 'virtualmachine_count'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'description', 'comments'],
  unique: [
    { fields: ['group', 'name'], message: 'Cluster with this Group and Name already exists.' },
    { fields: ['site', 'name'], message: 'Cluster with this Site and Name already exists.' },
  ],
  // host devices are dcim's (counted from the projection of them; none until dcim serves devices)
  counts: {
    device_count: { model: 'dcim.device', field: 'cluster' },
    virtualmachine_count: { model: 'virtualization.virtualmachine', field: 'cluster' },
  },
  hooks: {
    validate: (row, existing, wctx) => checkHostSites(row, existing, wctx),
  },
  contacts: true,
});

/** NetBox's Cluster.clean(): on update, every host device of a cluster with a site is in that site. */
async function checkHostSites(row: Row, existing: Row | null, wctx: WriteContext): Promise<void> {
  if (!existing || row.site_id === null || row.site_id === undefined) return;
  const ctx = wctx.service;
  const [hit] = await wctx.tx.query(
    sql`SELECT count(*) AS n, (SELECT s.data->>'name' FROM ${projection(ctx, 'dcim.site')} s WHERE s.id = ${row.site_id}) AS site
          FROM ${projection(ctx, 'dcim.device')} d
         WHERE NOT d.deleted AND (d.data->>'cluster')::bigint = ${existing.id}
           AND (d.data->>'site')::bigint IS DISTINCT FROM ${row.site_id}::bigint`,
  );
  const n = Number(hit?.n ?? 0);
  if (n) throw new ValidationError({ site: [`${n} devices are assigned as hosts for this cluster but are not in site ${String(hit.site)}`] });
}
