import { ValidationError } from '@inventory/core';
import { sql, raw, excludedBy, type FilterDef } from '@inventory/filtering';
import { defineModel, f, keyResolver, TENANT_GROUP_HOPS, type ModelDef, type ServiceContext } from '@inventory/rest';

/** Regional Internet Registries: who allocated an aggregate or an ASN. */
export const rir: ModelDef = defineModel({
  label: 'ipam.rir',
  endpoint: 'rirs',
  verboseName: 'RIR',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    is_private: f.boolean(false),
    description: f.description(),
  },
  brief: ['name', 'slug', 'aggregate_count'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'slug', 'description'],
  counts: { aggregate_count: { model: 'ipam.aggregate', field: 'rir' } },
});

/** The functional role of a prefix, IP range or VLAN. */
export const role: ModelDef = defineModel({
  label: 'ipam.role',
  endpoint: 'roles',
  verboseName: 'role',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    weight: f.integer({ min: 0, max: 32767, default: 1000 }),
    description: f.description(),
  },
  brief: ['name', 'slug', 'prefix_count', 'vlan_count'],
  counts: { prefix_count: { model: 'ipam.prefix', field: 'role' }, vlan_count: { model: 'ipam.vlan', field: 'role' } },
  display: (row) => String(row.name),
  ordering: ['weight', 'name'],
  search: ['name', 'slug', 'description'],
});

/** A BGP route target (RFC 4360), imported and exported by VRFs. */
export const routeTarget: ModelDef = defineModel({
  label: 'ipam.routetarget',
  endpoint: 'route-targets',
  table: 'route_target',
  verboseName: 'route target',
  fields: {
    name: f.name(21, { unique: true }),
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['name'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'description'],
  filters: (ctx) => [
    vrfTargets(ctx, 'importing_vrf_id', 'vrf_import_targets', 'id'),
    vrfTargets(ctx, 'importing_vrf', 'vrf_import_targets', 'rd'),
    vrfTargets(ctx, 'exporting_vrf_id', 'vrf_export_targets', 'id'),
    vrfTargets(ctx, 'exporting_vrf', 'vrf_export_targets', 'rd'),
  ],
});

/** NetBox's `importing_vrf(_id)` / `exporting_vrf(_id)`: route targets that any of the VRFs named (by id or RD) imports or exports. */
function vrfTargets(ctx: ServiceContext, name: string, through: string, key: 'id' | 'rd'): FilterDef {
  const links = raw(ctx.db.table(through));
  return {
    kind: 'method',
    name,
    ...(key === 'id' ? { valueType: 'integer' as const } : {}),
    lookups: ['n'],
    apply: async (values, lookup) => {
      const found = await keyResolver(ctx, 'ipam.vrf', key, false)(values);
      const missing = values.find((v) => !found.has(v));
      if (missing !== undefined) throw new ValidationError({ [lookup ? `${name}__${lookup}` : name]: [`Select a valid choice. ${missing} is not one of the available choices.`] });
      const vrfs = values.flatMap((v) => found.get(v) ?? []);
      return excludedBy(lookup, sql`t.id IN (SELECT l.target_id FROM ${links} l WHERE l.owner_id = ANY(${vrfs}::bigint[]))`);
    },
  };
}

/** A routing table: prefixes and addresses are unique per VRF (when it enforces it). */
export const vrf: ModelDef = defineModel({
  label: 'ipam.vrf',
  endpoint: 'vrfs',
  verboseName: 'VRF',
  fields: {
    name: f.name(100),
    rd: f.string(21, { nullable: true, unique: true, label: 'Route distinguisher' }),
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    enforce_unique: f.boolean(true),
    description: f.description(),
    comments: f.comments(),
    import_targets: f.m2m('ipam.routetarget', 'vrf_import_targets', { idFilter: 'import_target_id', filterKey: 'name', filterName: 'import_target' }),
    export_targets: f.m2m('ipam.routetarget', 'vrf_export_targets', { idFilter: 'export_target_id', filterKey: 'name', filterName: 'export_target' }),
  },
  brief: ['name', 'rd', 'prefix_count'],
  counts: {
    ipaddress_count: { model: 'ipam.ipaddress', field: 'vrf' },
    prefix_count: { model: 'ipam.prefix', field: 'vrf' },
  },
  display: (row) => (row.rd ? `${row.name} (${row.rd})` : String(row.name)),
  ordering: ['name', 'rd', 'id'],
  search: ['name', 'rd', 'description'],
});
