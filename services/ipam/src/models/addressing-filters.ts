import { ValidationError } from '@inventory/core';
import { and, excludedBy, type FilterDef, FilterValueError, or, raw, sql, type Sql } from '@inventory/filtering';
import {
  formatAddress,
  formatNetwork,
  keyResolver,
  ilike,
  networkOf,
  parseNetwork,
  projectedModels,
  projection,
  searchFilter,
  type ServiceContext,
} from '@inventory/rest';
import { INTERFACE_TYPES } from './addressing-choices';

/**
 * NetBox's IPAM filter sets over the network columns, as SQL with
 * PostgreSQL's operators (`<<`, `<<=`, `>>`, `>>=`, HOST, MASKLEN, FAMILY).
 */

const col = (name: string): Sql => sql`t.${raw(`"${name}"`)}`;
const last = (values: string[]) => (values[values.length - 1] ?? '').trim();
const network = (text: string) => {
  const n = parseNetwork(text);
  return n ? formatNetwork(networkOf(n)) : null;
};

/** `family`: FAMILY(expr) = 4 or 6 (one value). */
function familyFilter(expr: Sql): FilterDef {
  return {
    kind: 'method',
    name: 'family',
    valueType: 'integer',
    apply: (values) => {
      const v = last(values);
      if (v === '') return undefined;
      if (!/^-?\d+$/.test(v)) throw new FilterValueError('Enter a number.');
      return sql`FAMILY(${expr}) = ${Number(v)}`;
    },
  };
}

/** `mask_length` (any of the values), `mask_length__gte` / `__lte` (one value). */
function maskLengthFilter(expr: Sql): FilterDef {
  return {
    kind: 'method',
    name: 'mask_length',
    lookups: ['gte', 'lte'],
    valueType: 'integer',
    apply: (values, lookup) => {
      const given = values.map((v) => v.trim()).filter((v) => v !== '');
      if (!given.length) return undefined;
      const bad = given.find((v) => !/^\d+$/.test(v));
      if (bad !== undefined) throw new FilterValueError('Enter a number.');
      if (lookup === 'gte') return sql`MASKLEN(${expr}) >= ${Number(given[given.length - 1])}`;
      if (lookup === 'lte') return sql`MASKLEN(${expr}) <= ${Number(given[given.length - 1])}`;
      return sql`MASKLEN(${expr}) = ANY(${given.map(Number)}::int[])`;
    },
  };
}

/** A one-value filter on a network given as text: blank filters nothing, unparsable matches nothing. */
function networkMethod(name: string, build: (text: string) => Sql | null): FilterDef {
  return {
    kind: 'method',
    name,
    apply: (values) => {
      const v = last(values);
      if (v === '') return undefined;
      return build(v) ?? raw('FALSE');
    },
  };
}

/**
 * `present_in_vrf_id` / `present_in_vrf`: objects in the VRF, or in a VRF
 * exporting a route target that it imports.
 */
function presentInVrf(ctx: ServiceContext, name: string, key: 'id' | 'rd'): FilterDef {
  const vrfs = raw(ctx.db.table('vrf'));
  const imports = raw(ctx.db.table('vrf_import_targets'));
  const exports = raw(ctx.db.table('vrf_export_targets'));
  return {
    kind: 'method',
    name,
    valueType: key === 'id' ? 'integer' : 'string',
    apply: async (values) => {
      const v = last(values);
      if (v === '') return undefined;
      if (key === 'id' && !/^\d+$/.test(v)) throw new FilterValueError(`Select a valid choice. ${v} is not one of the available choices.`);
      const [vrf] = await ctx.db.query(key === 'id' ? sql`SELECT id FROM ${vrfs} WHERE id = ${Number(v)}` : sql`SELECT id FROM ${vrfs} WHERE rd = ${v}`);
      if (!vrf) throw new ValidationError({ [name]: [`Select a valid choice. ${v} is not one of the available choices.`] });
      const id = Number(vrf.id);
      return sql`(t.vrf_id = ${id} OR t.vrf_id IN (SELECT e.owner_id FROM ${exports} e WHERE e.target_id IN (SELECT i.target_id FROM ${imports} i WHERE i.owner_id = ${id})))`;
    },
  };
}

/** `q` over a prefix column: description, the prefix's text (case-sensitive), or (parsable) prefixes containing it. */
function prefixSearch(column: string): FilterDef {
  return searchFilter((pattern, _escaped, text) => {
    const net = network(text);
    return [ilike(sql`t.description`, pattern), sql`TEXT(${col(column)}) LIKE ${pattern}`, ...(net ? [sql`${col(column)} >>= ${net}::cidr`] : [])];
  });
}

export function aggregateFilters(_ctx: ServiceContext): FilterDef[] {
  return [
    familyFilter(col('prefix')),
    // one value, normalised to its network
    networkMethod('prefix', (v) => {
      const net = network(v);
      return net ? sql`t.prefix = ${net}::cidr` : null;
    }),
    prefixSearch('prefix'),
  ];
}

export function prefixFilters(ctx: ServiceContext): FilterDef[] {
  const prefix = col('prefix');
  return [
    familyFilter(prefix),
    {
      // any of the values, exactly (a value with host bits set matches nothing)
      kind: 'method',
      name: 'prefix',
      apply: (values) => {
        const given = values.map((v) => parseNetwork(v)).filter((n) => n !== null);
        if (!values.some((v) => v.trim() !== '')) return undefined;
        if (!given.length) return raw('FALSE');
        return sql`t.prefix::inet = ANY(${given.map((n) => formatNetwork(n!))}::inet[])`;
      },
    },
    networkMethod('within', (v) => {
      const net = network(v);
      return net ? sql`${prefix} << ${net}::cidr` : null;
    }),
    networkMethod('within_include', (v) => {
      const net = network(v);
      return net ? sql`${prefix} <<= ${net}::cidr` : null;
    }),
    networkMethod('contains', (v) => {
      const n = parseNetwork(v);
      if (!n) return null;
      // a network: containing or equal; a bare address: strictly containing (a /32 equal to it does not match)
      return v.includes('/') ? sql`${prefix} >>= ${formatNetwork(networkOf(n))}::cidr` : sql`${prefix} >> ${formatAddress(n.version, n.value)}::inet`;
    }),
    // the assigned VLAN's VID (numeric lookups too); a prefix without a VLAN has none
    { kind: 'integer', name: 'vlan_vid', expr: sql`(SELECT v.vid FROM ${raw(ctx.db.table('vlan'))} v WHERE v.id = t.vlan_id)` },
    { kind: 'integer', name: 'depth', expr: col('_depth') },
    { kind: 'integer', name: 'children', expr: col('children') },
    maskLengthFilter(prefix),
    presentInVrf(ctx, 'present_in_vrf_id', 'id'),
    presentInVrf(ctx, 'present_in_vrf', 'rd'),
    prefixSearch('prefix'),
  ];
}

/** `parent`: both (or the one) host(s) inside any of the given prefixes; any unparsable value matches nothing. */
function parentFilter(exprs: Sql[]): FilterDef {
  return {
    kind: 'method',
    name: 'parent',
    apply: (values) => {
      const given = values.map((v) => v.trim()).filter((v) => v !== '');
      if (!given.length) return undefined;
      const nets = given.map(network);
      if (nets.some((n) => n === null)) return raw('FALSE');
      // as a range of the host btree from the network's first to its last address: exact for hosts
      // (full-length masks), and no per-row recheck of `<<=`, which converts each host to text and
      // back (counting the 64,877 hosts of a /16: 41 → 15–23 ms)
      const inside = (e: Sql, n: string) => sql`HOST(${e})::inet BETWEEN HOST(network(${n}::cidr))::inet AND HOST(broadcast(${n}::cidr))::inet`;
      return or(nets.map((n) => and(exprs.map((e) => inside(e, n!)))));
    },
  };
}

export function rangeFilters(_ctx: ServiceContext): FilterDef[] {
  return [
    familyFilter(col('start_address')),
    networkMethod('contains', (v) => {
      const n = parseNetwork(v);
      if (!n) return null;
      const value = formatNetwork(n);
      return sql`(t.start_address <= ${value}::inet AND ${value}::inet <= t.end_address)`;
    }),
    parentFilter([col('start_address'), col('end_address')]),
    searchFilter((pattern, _escaped, text) => {
      const n = parseNetwork(text);
      return [
        ilike(sql`t.description`, pattern),
        sql`HOST(t.start_address) LIKE ${pattern}`,
        sql`HOST(t.end_address) LIKE ${pattern}`,
        ...(n ? [sql`(t.start_address = ${formatNetwork(n)}::inet OR t.end_address = ${formatNetwork(n)}::inet)`] : []),
      ];
    }),
  ];
}

/** Assigned to one of these objects of that type. */
const assignedTo = (type: string, ids: Sql) => sql`(t.assigned_object_type = ${type} AND t.assigned_object_id IN (${ids}))`;

/**
 * `device` / `device_id`: addresses on the devices' interfaces, and for a
 * virtual-chassis master, on the members' interfaces that are not
 * management-only. `virtual_machine` / `virtual_machine_id`: on the
 * machines' interfaces. No such device or machine: nothing matches.
 */
function parentFilters(ctx: ServiceContext): FilterDef[] {
  const have = (label: string) => projectedModels(ctx).has(label);
  const interfacesOf = (parents: number[]) => {
    const interfaces = projection(ctx, 'dcim.interface');
    const devices = projection(ctx, 'dcim.device');
    const chassis = projection(ctx, 'dcim.virtualchassis');
    return sql`SELECT i.id FROM ${interfaces} i WHERE NOT i.deleted AND (
      (i.data->>'device')::bigint = ANY(${parents}::bigint[])
      OR (COALESCE((i.data->>'mgmt_only')::boolean, FALSE) = FALSE AND (i.data->>'device')::bigint IN (
        SELECT m.id FROM ${devices} m JOIN ${chassis} vc ON vc.id = (m.data->>'virtual_chassis')::bigint AND NOT vc.deleted
         WHERE NOT m.deleted AND (vc.data->>'master')::bigint = ANY(${parents}::bigint[]))))`;
  };
  const vmInterfacesOf = (parents: number[]) =>
    sql`SELECT i.id FROM ${projection(ctx, 'virtualization.vminterface')} i WHERE NOT i.deleted AND (i.data->>'virtual_machine')::bigint = ANY(${parents}::bigint[])`;
  const byParent = (name: string, label: string, key: 'id' | 'name', type: string, members: (ids: number[]) => Sql): FilterDef => ({
    kind: 'method',
    name,
    valueType: key === 'id' ? 'integer' : 'string',
    apply: async (values) => {
      const given = values.filter((v) => v !== '');
      if (!given.length) return undefined;
      if (key === 'id' && given.some((v) => !/^\d+$/.test(v.trim()))) throw new FilterValueError('Enter a number.');
      if (!have(label)) return raw('FALSE');
      const match = key === 'id' ? sql`id = ANY(${given.map(Number)}::bigint[])` : sql`data->>'name' = ANY(${given}::text[])`;
      const rows = await ctx.db.query(sql`SELECT id FROM ${projection(ctx, label)} WHERE NOT deleted AND ${match}`);
      if (!rows.length) return raw('FALSE');
      return assignedTo(type, members(rows.map((r) => Number(r.id))));
    },
  });
  return [
    byParent('device', 'dcim.device', 'name', 'dcim.interface', interfacesOf),
    byParent('device_id', 'dcim.device', 'id', 'dcim.interface', interfacesOf),
    byParent('virtual_machine', 'virtualization.virtualmachine', 'name', 'virtualization.vminterface', vmInterfacesOf),
    byParent('virtual_machine_id', 'virtualization.virtualmachine', 'id', 'virtualization.vminterface', vmInterfacesOf),
  ];
}

/** The assigned object's id when it is of that type (null otherwise): relation filters by interface name or id. */
const assignedId = (type: string) => sql`(CASE WHEN t.assigned_object_type = ${type} THEN t.assigned_object_id END)`;

export function addressFilters(ctx: ServiceContext): FilterDef[] {
  const address = col('address');
  const interfaceFilter = (name: string, label: string, key: 'id' | 'name'): FilterDef => ({
    kind: 'relation',
    name,
    expr: assignedId(label),
    keyType: key === 'id' ? 'integer' : 'string',
    resolve: keyResolver(ctx, label, key, false),
  });
  return [
    familyFilter(address),
    parentFilter([address]),
    maskLengthFilter(address),
    presentInVrf(ctx, 'present_in_vrf_id', 'id'),
    presentInVrf(ctx, 'present_in_vrf', 'rd'),
    ...parentFilters(ctx),
    interfaceFilter('interface', 'dcim.interface', 'name'),
    interfaceFilter('interface_id', 'dcim.interface', 'id'),
    interfaceFilter('vminterface', 'virtualization.vminterface', 'name'),
    interfaceFilter('vminterface_id', 'virtualization.vminterface', 'id'),
    {
      kind: 'method',
      name: 'fhrpgroup_id',
      lookups: ['n'],
      valueType: 'integer',
      apply: (values, lookup) => {
        const ids = values.filter((v) => /^\d+$/.test(v.trim())).map(Number);
        if (ids.length !== values.length) throw new FilterValueError('Enter a number.');
        const hit = sql`COALESCE(${assignedId('ipam.fhrpgroup')} = ANY(${ids}::bigint[]), FALSE)`;
        return excludedBy(lookup, hit);
      },
    },
    { kind: 'boolean', name: 'assigned_to_interface', expr: sql`COALESCE(t.assigned_object_type = ANY(${[...INTERFACE_TYPES]}::text[]), FALSE)` },
    { kind: 'boolean', name: 'assigned', expr: sql`(t.assigned_object_type IS NOT NULL AND t.assigned_object_id IS NOT NULL)` },
    searchFilter((pattern, escaped) => [ilike(sql`t.dns_name`, pattern), ilike(sql`t.description`, pattern), sql`TEXT(t.address) ILIKE ${`${escaped}%`}`]),
  ];
}
