import { defineModel, f, type ModelDef } from '@inventory/rest';
import { contactFilters, deleteAssignments } from './contacts';

const name = (r: Record<string, unknown>) => String(r.name);

export const tenantGroup: ModelDef = defineModel({
  label: 'tenancy.tenantgroup',
  endpoint: 'tenant-groups',
  table: 'tenant_group',
  verboseName: 'tenant group',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    parent: f.fk('tenancy.tenantgroup', 'CASCADE', { nullable: true }),
    description: f.description(),
  },
  tree: true,
  brief: ['name', 'slug', 'tenant_count', '_depth'],
  display: name,
  ordering: ['_tree'],
  search: ['name', 'slug', 'description'],
  counts: { tenant_count: { model: 'tenancy.tenant', field: 'group', tree: true } },
});

export const tenant: ModelDef = defineModel({
  label: 'tenancy.tenant',
  endpoint: 'tenants',
  verboseName: 'tenant',
  fields: {
    name: f.name(100),
    slug: f.slug(100),
    group: f.fk('tenancy.tenantgroup', 'SET_NULL', { treeFilter: true }),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['name', 'slug'],
  display: name,
  ordering: ['name'],
  search: ['name', 'slug', 'description', 'comments'],
  unique: [
    { fields: ['group', 'name'], errorField: 'name', message: 'Tenant name must be unique per group.' },
    { fields: ['name'], whenNull: ['group'], errorField: 'name', message: 'Tenant name must be unique per group.' },
    { fields: ['group', 'slug'], errorField: 'slug', message: 'Tenant slug must be unique per group.' },
    { fields: ['slug'], whenNull: ['group'], errorField: 'slug', message: 'Tenant slug must be unique per group.' },
  ],
  counts: {
    circuit_count: { model: 'circuits.circuit', field: 'tenant' },
    device_count: { model: 'dcim.device', field: 'tenant' },
    ipaddress_count: { model: 'ipam.ipaddress', field: 'tenant' },
    prefix_count: { model: 'ipam.prefix', field: 'tenant' },
    rack_count: { model: 'dcim.rack', field: 'tenant' },
    site_count: { model: 'dcim.site', field: 'tenant' },
    virtualmachine_count: { model: 'virtualization.virtualmachine', field: 'tenant' },
    vlan_count: { model: 'ipam.vlan', field: 'tenant' },
    vrf_count: { model: 'ipam.vrf', field: 'tenant' },
    cluster_count: { model: 'virtualization.cluster', field: 'tenant' },
  },
  filters: contactFilters,
  hooks: { beforeDelete: (ids, wctx) => deleteAssignments('tenancy.tenant', ids, wctx) },
});

