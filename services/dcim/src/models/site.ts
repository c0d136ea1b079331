import { defineModel, f, TENANT_GROUP_HOPS, type ModelDef } from '@inventory/rest';
import { SITE_STATUS } from './choices';

export const site: ModelDef = defineModel({
  label: 'dcim.site',
  endpoint: 'sites',
  verboseName: 'site',
  fields: {
    name: f.name(100, { unique: true, natural: true }),
    slug: f.slug(100, { unique: true }),
    status: f.choice(SITE_STATUS, { default: 'active', nullable: false }),
    // tree filters: ?region=<slug> and ?region_id= match sites of the region's descendants too
    region: f.fk('dcim.region', 'SET_NULL', { treeFilter: true }),
    group: f.fk('dcim.sitegroup', 'SET_NULL', { treeFilter: true }),
    // NetBox's Tenancy filters: tenant, tenant_id, and the tenant's group (tenant_group, tenant_group_id) at any depth
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    facility: f.string(50),
    time_zone: f.timeZone(),
    description: f.description(),
    physical_address: f.string(200),
    shipping_address: f.string(200),
    latitude: f.decimal({ maxDigits: 8, decimalPlaces: 6, nullable: true }),
    longitude: f.decimal({ maxDigits: 9, decimalPlaces: 6, nullable: true }),
    comments: f.comments(),
    // ipam's ASNs (written as ids); filtered by id (asn_id) or by number (asn, from dcim's projection of them)
    asns: f.m2m('ipam.asn', 'site_asns', { idFilter: 'asn_id', filterKey: 'asn', filterName: 'asn' }),
  },
  brief: ['name', 'slug'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'facility', 'description', 'physical_address', 'shipping_address', 'comments'],
  counts: {
    circuit_count: { model: 'circuits.circuittermination', field: 'site' },
    device_count: { model: 'dcim.device', field: 'site' },
    prefix_count: { model: 'ipam.prefix', field: 'site' },
    rack_count: { model: 'dcim.rack', field: 'site' },
    // NetBox counts the machines whose cluster is in the site (cluster__site), not the machines' own site
    virtualmachine_count: { model: 'virtualization.virtualmachine', field: 'cluster', via: { model: 'virtualization.cluster', field: 'site' } },
    vlan_count: { model: 'ipam.vlan', field: 'site' },
  },
  // NetBox's Contacts filters (contact, contact_role, contact_group), through tenancy's assignments
  contacts: true,
});
