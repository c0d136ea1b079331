import { ValidationError } from '@inventory/core';
import { sql, raw, type Sql } from '@inventory/filtering';
import { defineModel, f, searchFilter, ids, projection, relatedId, treeIds, TENANT_GROUP_HOPS, type ModelDef, type Row, type ServiceContext, type WriteContext } from '@inventory/rest';
import { VIRTUAL_MACHINE_STATUS } from './choices';
import { macFilter } from './mac';
import { SITE_SCOPE_HOPS } from '@inventory/refs';
import { CLUSTER_HOPS } from './scope';

/** PositiveIntegerField's upper bound. */
const POSITIVE_INT_MAX = 2147483647;

/**
 * NetBox's VirtualMachine, with its `config_context` merged in SQL from the
 * projected config contexts (libs/rest read/config-context.ts). `primary_ip` is computed: the IPv6 primary address when set, else the IPv4
 * one (PREFER_IPV4 off). `interface_count` and `virtual_disk_count` are
 * NetBox's stored counters, counted here.
 */
export const virtualMachine: ModelDef = defineModel({
  label: 'virtualization.virtualmachine',
  endpoint: 'virtual-machines',
  table: 'virtual_machine',
  verboseName: 'virtual machine',
  fields: {
    // the base filter is case-insensitive (`name__n` stays case-sensitive)
    name: f.name(64, { natural: true, iexactFilter: true }),
    status: f.choice(VIRTUAL_MACHINE_STATUS, { default: 'active', nullable: false }),
    site: f.fk('dcim.site', 'PROTECT', { nullable: true, hops: SITE_SCOPE_HOPS }),
    // ?cluster=<name>, and the cluster's group and type (cluster_group, cluster_type, by slug and id)
    cluster: f.fk('virtualization.cluster', 'PROTECT', { nullable: true, filterKey: 'name', hops: CLUSTER_HOPS }),
    device: f.fk('dcim.device', 'PROTECT', { nullable: true, filterKey: 'name' }),
    role: f.fk('dcim.devicerole', 'PROTECT', { nullable: true }),
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    platform: f.fk('dcim.platform', 'SET_NULL'),
    primary_ip: f.json({ readOnly: true, virtual: true, nullable: true, label: 'primary IP' }),
    primary_ip4: f.fk('ipam.ipaddress', 'SET_NULL', { filterKey: null, label: 'primary IPv4' }),
    primary_ip6: f.fk('ipam.ipaddress', 'SET_NULL', { filterKey: null, label: 'primary IPv6' }),
    vcpus: f.decimal({ maxDigits: 6, decimalPlaces: 2, nullable: true, min: 0.01, label: 'vCPUs' }),
    memory: f.integer({ nullable: true, min: 0, max: POSITIVE_INT_MAX, label: 'memory (MB)' }),
    disk: f.integer({ nullable: true, min: 0, max: POSITIVE_INT_MAX, label: 'disk (GB)' }),
    description: f.description(),
    comments: f.comments(),
    config_template: f.fk('extras.configtemplate', 'PROTECT', { nullable: true, filterKey: null }),
    local_context_data: f.json({ nullable: true, shape: 'object', filter: false }),
  },
  brief: ['name'],
  display: (row) => String(row.name),
  ordering: ['name', 'id'],
  search: ['name', 'description', 'comments'],
  unique: [
    { fields: ['name', 'cluster', 'tenant'], caseInsensitive: true, message: 'Virtual machine name must be unique per cluster.' },
    { fields: ['name', 'cluster'], whenNull: ['tenant'], caseInsensitive: true, message: 'Virtual machine name must be unique per cluster.' },
  ],
  counts: {
    interface_count: { model: 'virtualization.vminterface', field: 'virtual_machine' },
    virtual_disk_count: { model: 'virtualization.virtualdisk', field: 'virtual_machine' },
  },
  filters: (ctx) => machineFilters(ctx),
  hooks: {
    validate: (row, existing, wctx) => checkMachine(row, existing, wctx),
    beforeSave: (columns, existing, wctx) => fillFromCluster(columns, existing, wctx),
    decorate: (_rows, out, { brief, wants }) => {
      if (brief || (wants && !wants('primary_ip'))) return;
      for (const rep of out) rep.primary_ip = rep.primary_ip6 ?? rep.primary_ip4 ?? null;
    },
  },
  contacts: true,
  // the config contexts matching the machine's site (and its region and group), cluster (and its type and group), role, platform, tenant (and its group) and tags
  configContext: {
    reads: ['dcim.region', 'dcim.sitegroup', 'tenancy.tenantgroup'],
    after: 'custom_fields',
    criteria: (ctx) => ({
      regions: treeIds(ctx, 'dcim.region', relatedId(ctx, 'dcim.site', sql`t.site_id`, 'region')),
      site_groups: treeIds(ctx, 'dcim.sitegroup', relatedId(ctx, 'dcim.site', sql`t.site_id`, 'group')),
      sites: ids(sql`t.site_id`),
      roles: ids(sql`t.role_id`),
      platforms: ids(sql`t.platform_id`),
      cluster_types: ids(relatedId(ctx, 'virtualization.cluster', sql`t.cluster_id`, 'type')),
      cluster_groups: ids(relatedId(ctx, 'virtualization.cluster', sql`t.cluster_id`, 'group')),
      clusters: ids(sql`t.cluster_id`),
      tenant_groups: treeIds(ctx, 'tenancy.tenantgroup', relatedId(ctx, 'tenancy.tenant', sql`t.tenant_id`, 'group')),
      tenants: ids(sql`t.tenant_id`),
    }),
  },
});

function machineFilters(ctx: ServiceContext) {
  const interfaces = raw(ctx.db.table('vm_interface'));
  const addresses = projection(ctx, 'ipam.ipaddress');
  return [
    // the MAC address of any of the machine's interfaces
    macFilter('mac_address', sql`i.mac_address`, (cond: Sql) => sql`EXISTS (SELECT 1 FROM ${interfaces} i WHERE i.virtual_machine_id = t.id AND ${cond})`),
    { kind: 'boolean' as const, name: 'has_primary_ip', expr: sql`(t.primary_ip4_id IS NOT NULL OR t.primary_ip6_id IS NOT NULL)` },
    { kind: 'boolean' as const, name: 'local_context_data', expr: sql`(t.local_context_data IS NOT NULL)` },
    // name, description or comments contain it, or a primary address starts with it
    searchFilter((contains, escaped) => [
      sql`t.name ILIKE ${contains}`,
      sql`t.description ILIKE ${contains}`,
      sql`t.comments ILIKE ${contains}`,
      sql`EXISTS (SELECT 1 FROM ${addresses} a WHERE NOT a.deleted AND a.id IN (t.primary_ip4_id, t.primary_ip6_id) AND a.data->>'address' LIKE ${`${escaped}%`})`,
    ]),
  ];
}

const isSet = (v: unknown) => v !== null && v !== undefined;

/** The cluster's name and site, or undefined. */
async function clusterOf(wctx: WriteContext, id: unknown): Promise<Row | undefined> {
  if (!isSet(id)) return undefined;
  const [hit] = await wctx.tx.query(sql`SELECT id, name, site_id FROM ${raw(wctx.service.db.table('cluster'))} WHERE id = ${id}`);
  return hit;
}

/** A projected object's stored values and string form, or undefined. */
async function projected(wctx: WriteContext, label: string, id: unknown): Promise<Row | undefined> {
  if (!isSet(id)) return undefined;
  const [hit] = await wctx.tx.query(sql`SELECT data, nested->>'display' AS display FROM ${projection(wctx.service, label)} WHERE id = ${id} AND NOT deleted`);
  return hit ? { ...(hit.data as Row), display: hit.display ?? (hit.data as Row).name } : undefined;
}

/** The sum of a machine's virtual disks' sizes (0 without any). */
export async function diskTotal(wctx: WriteContext, machineId: unknown): Promise<number> {
  const [hit] = await wctx.tx.query(sql`SELECT COALESCE(sum(size), 0) AS total FROM ${raw(wctx.service.db.table('virtual_disk'))} WHERE virtual_machine_id = ${machineId}`);
  return Number(hit.total);
}

/** NetBox's VirtualMachine.clean(), after the role's `vm_role` limit (a field rule in NetBox, checked first). */
async function checkMachine(row: Row, existing: Row | null, wctx: WriteContext): Promise<void> {
  if (isSet(row.role_id)) {
    const role = await projected(wctx, 'dcim.devicerole', row.role_id);
    if (role && role.vm_role === false) throw new ValidationError({ role: [`device role instance with id ${String(row.role_id)} does not exist.`] });
  }
  if (!isSet(row.site_id) && !isSet(row.cluster_id)) {
    throw new ValidationError({ cluster: ['A virtual machine must be assigned to a site and/or cluster.'] });
  }
  const cl = await clusterOf(wctx, row.cluster_id);
  if (cl && isSet(row.site_id) && String(cl.site_id ?? '') !== String(row.site_id)) {
    const site = await projected(wctx, 'dcim.site', row.site_id);
    throw new ValidationError({ cluster: [`The selected cluster (${String(cl.name)}) is not assigned to this site (${String(site?.display ?? row.site_id)}).`] });
  }
  if (isSet(row.device_id)) {
    if (!cl) throw new ValidationError({ device: ['Must specify a cluster when assigning a host device.'] });
    const device = await projected(wctx, 'dcim.device', row.device_id);
    if (device && String(device.cluster ?? '') !== String(cl.id)) {
      throw new ValidationError({ device: [`The selected device (${String(device.display)}) is not assigned to this cluster (${String(cl.name)}).`] });
    }
  }
  if (existing) {
    const total = await diskTotal(wctx, existing.id);
    if (total && isSet(row.disk) && Number(row.disk) !== total) {
      throw new ValidationError({ disk: [`The specified disk size (${String(row.disk)}) must match the aggregate size of assigned virtual disks (${total}).`] });
    }
  }
  for (const family of [4, 6]) {
    const field = `primary_ip${family}`;
    if (!isSet(row[`${field}_id`])) continue;
    const ip = await projected(wctx, 'ipam.ipaddress', row[`${field}_id`]);
    if (!ip) continue;
    const address = String(ip.address ?? ip.display);
    const version = address.includes(':') ? 6 : 4;
    if (version !== family) throw new ValidationError({ [field]: [`Must be an IPv${family} address. (${address} is an IPv${version} address.)`] });
    if (!existing || !(await onOwnInterface(wctx, ip, Number(existing.id)))) {
      throw new ValidationError({ [field]: [`The specified IP address (${address}) is not assigned to this VM.`] });
    }
  }
}

/** The address is assigned to one of the machine's interfaces, or is the NAT outside address of one that is. */
async function onOwnInterface(wctx: WriteContext, ip: Row, machineId: number): Promise<boolean> {
  const own = async (address: Row | undefined) => {
    if (!address || address.assigned_object_type !== 'virtualization.vminterface' || !isSet(address.assigned_object_id)) return false;
    const [hit] = await wctx.tx.query(
      sql`SELECT 1 FROM ${raw(wctx.service.db.table('vm_interface'))} WHERE id = ${address.assigned_object_id} AND virtual_machine_id = ${machineId}`,
    );
    return !!hit;
  };
  if (await own(ip)) return true;
  return own(await projected(wctx, 'ipam.ipaddress', ip.nat_inside));
}

/**
 * NetBox's VirtualMachine.save(): a machine in a cluster without a site of
 * its own takes the cluster's; and clean(): a machine with virtual disks and
 * no disk size gets their total.
 */
async function fillFromCluster(columns: Row, existing: Row | null, wctx: WriteContext): Promise<void> {
  const merged = { ...(existing ?? {}), ...columns };
  if (isSet(merged.cluster_id) && !isSet(merged.site_id)) {
    const cl = await clusterOf(wctx, merged.cluster_id);
    if (cl && isSet(cl.site_id)) columns.site_id = cl.site_id;
  }
  if (existing && !isSet(merged.disk)) {
    const total = await diskTotal(wctx, existing.id);
    if (total) columns.disk = total;
  }
}
