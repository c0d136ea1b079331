import { SITE_SCOPE_HOPS } from '@inventory/refs';
import { defineModel, f, networkText, TENANT_GROUP_HOPS, type ModelDef } from '@inventory/rest';
import { aggregateFilters, addressFilters, prefixFilters, rangeFilters } from './addressing-filters';
import {
  checkAddress,
  checkAddressesAfterWrite,
  checkAggregate,
  checkPrefix,
  checkPrefixesAfterWrite,
  checkRange,
  decorateAddresses,
  decorateFamily,
  lockAddresses,
  nestedFamily,
  normalizeAddress,
  rangeName,
  rangeSize,
  recalculateHierarchy,
  refreshUsageAfterWrite,
  refreshUsageBeforeDelete,
} from './addressing-rules';

export { rangeName };
import { ASSIGNABLE, IPADDRESS_ROLE, IPADDRESS_STATUS, IPRANGE_STATUS, PREFIX_STATUS } from './addressing-choices';

const tenant = () => f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS });
const vrf = () => f.fk('ipam.vrf', 'PROTECT', { nullable: true, filterKey: 'rd', label: 'VRF' });
const role = () => f.fk('ipam.role', 'SET_NULL');
/** `family` (4 or 6) is computed from the address: `{value, label}` in full, the bare integer in brief and nested forms. */
const family = () => f.json({ readOnly: true, virtual: true, orderable: false });

/** An aggregate: a block of address space a RIR allocated; aggregates never overlap. */
export const aggregate: ModelDef = defineModel({
  label: 'ipam.aggregate',
  endpoint: 'aggregates',
  verboseName: 'aggregate',
  fields: {
    family: family(),
    prefix: f.cidr({ required: true, zeroMask: 'Cannot create aggregate with /0 mask.' }),
    rir: f.fk('ipam.rir', 'PROTECT', { required: true, label: 'RIR' }),
    tenant: tenant(),
    date_added: f.date({ nullable: true }),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['family', 'prefix'],
  display: (row) => String(networkText(row.prefix)),
  ordering: ['prefix', 'id'],
  filters: (ctx) => aggregateFilters(ctx),
  hooks: {
    validate: (row, existing, wctx) => checkAggregate(row, existing, wctx),
    decorate: (rows, out, c) => decorateFamily(rows, out, c.brief, 'prefix'),
    nested: nestedFamily,
  },
});

/** A prefix: an IPv4 or IPv6 network in a VRF (or the global table), with its place in the hierarchy kept on write. */
export const prefix: ModelDef = defineModel({
  label: 'ipam.prefix',
  endpoint: 'prefixes',
  verboseName: 'prefix',
  verboseNamePlural: 'prefixes',
  createdAsDate: true,
  fields: {
    family: family(),
    prefix: f.cidr({ required: true, zeroMask: 'Cannot create prefix with /0 mask.' }),
    site: f.fk('dcim.site', 'PROTECT', { nullable: true, hops: SITE_SCOPE_HOPS }),
    vrf: vrf(),
    tenant: tenant(),
    // filters `vlan_id` (here) and `vlan_vid` (addressing-filters.ts)
    vlan: f.fk('ipam.vlan', 'PROTECT', { nullable: true, filterKey: null, label: 'VLAN' }),
    status: f.choice(PREFIX_STATUS, { default: 'active' }),
    role: role(),
    is_pool: f.boolean(false, { label: 'is a pool' }),
    mark_utilized: f.boolean(false, { label: 'mark utilized' }),
    description: f.description(),
    comments: f.comments(),
    // stored hierarchy (NetBox's _children and _depth), kept by recalculateHierarchy on every write
    children: f.integer({ readOnly: true, filter: false }),
    _depth: f.integer({ readOnly: true, filter: false, label: 'depth' }),
  },
  brief: ['family', 'prefix', '_depth'],
  display: (row) => String(networkText(row.prefix)),
  // the global table (no VRF) first, then by VRF id, then in cidr order
  ordering: ['_vrf', 'prefix', 'id'],
  orderExpressions: { _vrf: 'COALESCE(t.vrf_id, 0)' },
  filters: (ctx) => prefixFilters(ctx),
  hooks: {
    validate: (row, existing, wctx) => checkPrefix(row, existing, wctx),
    beforeSave: (columns, existing) => {
      if (!existing) Object.assign(columns, { children: 0, _depth: 0 });
    },
    afterWrite: async (touched, wctx) => {
      await recalculateHierarchy(touched, wctx);
      await checkPrefixesAfterWrite(touched, wctx);
    },
    decorate: (rows, out, c) => decorateFamily(rows, out, c.brief, 'prefix'),
    nested: nestedFamily,
  },
});

/** A range of addresses inside a VRF, from a start to an end address with the same mask. */
export const ipRange: ModelDef = defineModel({
  label: 'ipam.iprange',
  endpoint: 'ip-ranges',
  table: 'ip_range',
  verboseName: 'IP range',
  fields: {
    family: family(),
    start_address: f.inet({ required: true, label: 'start address' }),
    end_address: f.inet({ required: true, label: 'end address' }),
    // up to 2^32 - 1 addresses (the limit below): more than an int4 holds
    size: { type: 'bigint', readOnly: true, filter: false },
    vrf: vrf(),
    tenant: tenant(),
    status: f.choice(IPRANGE_STATUS, { default: 'active' }),
    role: role(),
    description: f.description(),
    comments: f.comments(),
    mark_utilized: f.boolean(false, { label: 'mark utilized' }),
  },
  brief: ['family', 'start_address', 'end_address'],
  display: (row) => rangeName(row),
  ordering: ['_vrf', 'start_address', 'id'],
  orderExpressions: { _vrf: 'COALESCE(t.vrf_id, 0)' },
  filters: (ctx) => rangeFilters(ctx),
  hooks: {
    validate: (row, existing, wctx) => checkRange(row, existing, wctx),
    beforeSave: (columns, existing) => {
      const merged = { ...(existing ?? {}), ...columns };
      if (!existing || 'start_address' in columns || 'end_address' in columns) columns.size = rangeSize(merged);
    },
    decorate: (rows, out, c) => decorateFamily(rows, out, c.brief, 'start_address'),
    nested: nestedFamily,
  },
});

/** An IP address with its mask, optionally assigned to an interface (of a device or a VM) or an FHRP group. */
export const ipAddress: ModelDef = defineModel({
  label: 'ipam.ipaddress',
  endpoint: 'ip-addresses',
  table: 'ip_address',
  verboseName: 'IP address',
  verboseNamePlural: 'IP addresses',
  createdAsDate: true,
  fields: {
    family: family(),
    address: f.inet({ required: true, zeroMask: 'Cannot create IP address with /0 mask.' }),
    vrf: vrf(),
    tenant: tenant(),
    status: f.choice(IPADDRESS_STATUS, { default: 'active' }),
    role: f.choice(IPADDRESS_ROLE, { blank: true }),
    assigned_object_type: f.contentType({ nullable: true, allowed: (label) => ASSIGNABLE.includes(label), filter: false }),
    assigned_object_id: { type: 'bigint', nullable: true, min: 0, filter: false },
    assigned_object: f.generic('assigned_object_type', 'assigned_object_id', { allowed: (label) => ASSIGNABLE.includes(label) }),
    nat_inside: f.fk('ipam.ipaddress', 'SET_NULL', { filterKey: null, filter: false, label: 'NAT (inside)' }),
    nat_outside: f.json({ readOnly: true, virtual: true, orderable: false, label: 'NAT (outside)' }),
    dns_name: f.string(255, {
      label: 'DNS name',
      pattern: {
        regex: /^([0-9A-Za-z_-]+|\*)(\.[0-9A-Za-z_-]+)*\.?$/,
        message: 'Only alphanumeric characters, asterisks, hyphens, periods, and underscores are allowed in DNS names',
      },
    }),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['family', 'address'],
  display: (row) => String(networkText(row.address)),
  // by host only (IPv4 first, then numerically); the mask takes no part
  ordering: ['_host', 'id'],
  orderExpressions: { _host: 'HOST(t.address)::inet' },
  filters: (ctx) => addressFilters(ctx),
  // the interfaces' devices and machines (filters by device, primary IPs), and virtual chassis masters
  reads: [
    { label: 'dcim.interface', keys: ['device'] },
    { label: 'virtualization.vminterface', keys: ['virtual_machine'] },
    { label: 'dcim.device', keys: ['virtual_chassis'] },
    { label: 'dcim.virtualchassis' },
    { label: 'virtualization.virtualmachine' },
  ],
  hooks: {
    validate: (row, existing, wctx) => checkAddress(row, existing, wctx),
    beforeSave: (columns) => normalizeAddress(columns),
    beforeDelete: async (ids, wctx) => {
      await lockAddresses(wctx);
      // the block-usage summary (decision 019): deletes are counted here, where cascades pass too
      await refreshUsageBeforeDelete(ids, wctx);
    },
    afterWrite: async (touched, wctx) => {
      await checkAddressesAfterWrite(touched, wctx);
      await refreshUsageAfterWrite(touched, wctx);
    },
    decorate: (rows, out, c) => decorateAddresses(rows, out, c),
    nested: nestedFamily,
  },
});
