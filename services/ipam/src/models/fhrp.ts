import { ValidationError } from '@inventory/core';
import { sql, raw, or, type FilterDef } from '@inventory/filtering';
import {
  defineModel,
  f,
  keyResolver,
  networkText,
  projection,
  projectedModels,
  represent,
  type ModelDef,
  type Queryable,
  type Row,
  type ServiceContext,
} from '@inventory/rest';
import { FHRP_AUTH_TYPES, FHRP_PROTOCOLS } from './choices';

/** A first-hop redundancy group (VRRP, HSRP …): the interfaces assigned to it share its virtual addresses. */
export const fhrpGroup: ModelDef = defineModel({
  label: 'ipam.fhrpgroup',
  endpoint: 'fhrp-groups',
  table: 'fhrp_group',
  verboseName: 'FHRP group',
  fields: {
    name: f.string(100),
    // stock DRF choice fields in NetBox's serializer: the bare value
    protocol: f.choice(FHRP_PROTOCOLS, { required: true, plain: true }),
    group_id: f.integer({ required: true, min: 0, max: 32767, label: 'group ID' }),
    auth_type: f.choice(FHRP_AUTH_TYPES, { blank: true, plain: true, label: 'authentication type' }),
    auth_key: f.string(255, { label: 'authentication key' }),
    description: f.description(),
    comments: f.comments(),
    // the IP addresses assigned to the group, nested (decorate)
    ip_addresses: f.json({ readOnly: true, virtual: true, filter: false, orderable: false, label: 'IP addresses' }),
  },
  brief: ['protocol', 'group_id'],
  display: (row) => {
    const label = FHRP_PROTOCOLS.find(([v]) => v === row.protocol)?.[1] ?? String(row.protocol);
    return `${row.name ? `${String(row.name)} ` : ''}${label}: ${String(row.group_id)}`;
  },
  ordering: ['protocol', 'group_id', 'id'],
  search: ['name', 'description'],
  filters: (ctx) => [relatedIpFilter(ctx)],
  hooks: {
    decorate: async (rows, out, c) => {
      // a blank authentication type reads as "" (a plain choice), not null
      if (!c.brief) for (const rep of out) if ('auth_type' in rep && rep.auth_type === null) rep.auth_type = '';
      await decorateAddresses(rows, out, c);
    },
  },
});

/**
 * `related_ip=<IP address id>` (any of them): groups holding an address
 * inside that address's network (`<<=` its address with its mask), in the
 * same VRF, or both in the global table. An id naming no address is a 400.
 */
function relatedIpFilter(ctx: ServiceContext): FilterDef {
  const addresses = raw(ctx.db.table('ip_address'));
  return {
    kind: 'method',
    name: 'related_ip',
    valueType: 'integer',
    apply: async (values) => {
      const invalid = (v: string) => new ValidationError({ related_ip: [`Select a valid choice. ${v} is not one of the available choices.`] });
      const given = values.map((v) => v.trim()).filter((v) => v !== '');
      if (!given.length) return undefined;
      const bad = given.find((v) => !/^\d{1,15}$/.test(v));
      if (bad !== undefined) throw invalid(bad);
      const ids = given.map(Number);
      const rows = await ctx.db.query(sql`SELECT id, address, vrf_id FROM ${addresses} WHERE id = ANY(${ids}::bigint[])`);
      const missing = ids.find((id) => !rows.some((r) => Number(r.id) === id));
      if (missing !== undefined) throw invalid(String(missing));
      if (!rows.length) return undefined;
      return or(
        rows.map(
          (r) => sql`EXISTS (SELECT 1 FROM ${addresses} a WHERE a.assigned_object_type = 'ipam.fhrpgroup' AND a.assigned_object_id = t.id
            AND a.address <<= ${String(r.address)}::inet AND ${r.vrf_id === null ? sql`a.vrf_id IS NULL` : sql`a.vrf_id = ${Number(r.vrf_id)}`})`,
        ),
      );
    },
  };
}

/**
 * NetBox's FHRPGroup: `ip_addresses`, the IP addresses assigned to the group
 * (nested, by host), and its string form followed by the first of them
 * (`HSRP: 7 (192.0.2.1/24)`), in every form (nested ones too: an address's
 * `assigned_object`, an assignment's `group`). One query for the page.
 */
async function decorateAddresses(
  rows: Row[],
  out: Row[],
  c: { brief: boolean; service: ServiceContext; q: Queryable; base: string; wants?: (key: string) => boolean },
): Promise<void> {
  const showAddresses = !c.brief && (c.wants?.('ip_addresses') ?? true);
  const showDisplay = c.wants?.('display') ?? true;
  const addressModel = c.service.models.get('ipam.ipaddress');
  if (!rows.length || !addressModel || (!showAddresses && !showDisplay)) return;
  const assigned = await c.q.query(
    sql`SELECT * FROM ${raw(c.service.db.table(addressModel.table))}
         WHERE assigned_object_type = 'ipam.fhrpgroup' AND assigned_object_id = ANY(${rows.map((r) => Number(r.id))}::bigint[])
         ORDER BY CAST(HOST(address) AS inet), id`,
  );
  const nested = showAddresses && assigned.length ? await represent(c.service, addressModel, assigned, { mode: 'nested', base: c.base, q: c.q }) : [];
  const byGroup = new Map<number, { first: Row; reps: Row[] }>();
  assigned.forEach((address, i) => {
    const group = Number(address.assigned_object_id);
    const entry = byGroup.get(group) ?? { first: address, reps: [] };
    if (nested[i]) entry.reps.push(nested[i]);
    byGroup.set(group, entry);
  });
  rows.forEach((row, i) => {
    const mine = byGroup.get(Number(row.id));
    if (showDisplay && mine && typeof out[i].display === 'string') out[i].display = `${out[i].display} (${String(networkText(mine.first.address))})`;
    if (showAddresses && 'ip_addresses' in out[i]) {
      // after the tags, custom fields and timestamps, as NetBox's serializer lists it
      delete out[i].ip_addresses;
      out[i].ip_addresses = mine?.reps ?? [];
    }
  });
}

/** The interfaces an FHRP group may be assigned to. */
const FHRP_INTERFACES = new Set(['dcim.interface', 'virtualization.vminterface']);
const isInterface = (label: string) => FHRP_INTERFACES.has(label);

/** One interface (of a device or a virtual machine) taking part in an FHRP group, with its priority. */
export const fhrpGroupAssignment: ModelDef = defineModel({
  label: 'ipam.fhrpgroupassignment',
  endpoint: 'fhrp-group-assignments',
  table: 'fhrp_group_assignment',
  verboseName: 'FHRP group assignment',
  fields: {
    group: f.fk('ipam.fhrpgroup', 'CASCADE', { required: true, filterKey: null }),
    interface_type: f.contentType({ required: true, allowed: isInterface }),
    interface_id: { type: 'bigint', required: true, min: 0, max: Number.MAX_SAFE_INTEGER },
    interface: f.generic('interface_type', 'interface_id', { allowed: isInterface }),
    priority: f.integer({ required: true, min: 0, max: 255 }),
  },
  brief: ['group', 'interface_type', 'interface_id', 'priority'],
  display: (row, rep) => {
    const iface = (rep.interface as { display?: string; name?: string } | null) ?? null;
    const group = (rep.group as { display?: string } | null)?.display ?? String(row.group_id);
    return `${iface?.name ?? iface?.display ?? `${String(row.interface_type)} ${String(row.interface_id)}`}: ${group} (${String(row.priority)})`;
  },
  ordering: ['-priority', 'id'],
  tags: false,
  customFields: false,
  unique: [{ fields: ['interface_type', 'interface_id', 'group'], message: 'FHRP group assignment with this Interface type, Interface id and Group already exists.' }],
  filters: (ctx) => parentFilters(ctx),
  // the device and machine filters look interfaces up by their parent (indexed)
  reads: [
    { label: 'dcim.interface', keys: ['device'] },
    { label: 'virtualization.vminterface', keys: ['virtual_machine'] },
  ],
  hooks: {
    validate: (row) => {
      if (row.interface_type && !isInterface(String(row.interface_type))) throw new ValidationError({ interface_type: [`Invalid content type: ${String(row.interface_type)}`] });
    },
  },
});

/**
 * `device`/`device_id`, `virtual_machine`/`virtual_machine_id`: assignments
 * whose interface belongs to that device or machine (by name, or id), read
 * from this service's projections of dcim's and virtualization's interfaces.
 */
function parentFilters(ctx: ServiceContext): FilterDef[] {
  const via = (name: string, ifaceLabel: string, owner: string, ownerLabel: string, key: 'id' | 'name'): FilterDef => ({
    kind: 'method',
    name,
    valueType: key === 'id' ? 'integer' : 'string',
    apply: async (values) => {
      if (!projectedModels(ctx).has(ifaceLabel)) return sql`FALSE`;
      const found = await keyResolver(ctx, ownerLabel, key, false)(values);
      const ids = values.flatMap((v) => found.get(v) ?? []);
      return sql`(t.interface_type = ${ifaceLabel} AND t.interface_id IN (
        SELECT i.id FROM ${projection(ctx, ifaceLabel)} i WHERE NOT i.deleted AND (i.data->>${owner})::bigint = ANY(${ids}::bigint[])))`;
    },
  });
  return [
    via('device', 'dcim.interface', 'device', 'dcim.device', 'name'),
    via('device_id', 'dcim.interface', 'device', 'dcim.device', 'id'),
    via('virtual_machine', 'virtualization.vminterface', 'virtual_machine', 'virtualization.virtualmachine', 'name'),
    via('virtual_machine_id', 'virtualization.vminterface', 'virtual_machine', 'virtualization.virtualmachine', 'id'),
  ];
}
