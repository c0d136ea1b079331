import { excludedBy, type FilterDef, or, raw, sql } from '@inventory/filtering';
import { createdOf, defineModel, f, searchFilter, ids, keyResolver, relatedId, treeIds, TENANT_GROUP_HOPS, type ModelDef, type Row, type ServiceContext } from '@inventory/rest';
import { DEVICE_AIRFLOW, DEVICE_FACE, DEVICE_STATUS } from './choices';
import { SITE_SCOPE_HOPS } from '@inventory/refs';
import { checkDevice, deviceDefaults, moveChildren } from './device-rules';
import { instantiateComponents } from './instantiate';
import { decorateDevices } from './device-decorate';
import { deleteDeviceLinks } from './wireless';

/** Components a device counts, by the count field NetBox names. */
export const DEVICE_COMPONENT_COUNTS: Record<string, { model: string; table: string }> = {
  console_port_count: { model: 'dcim.consoleport', table: 'console_port' },
  console_server_port_count: { model: 'dcim.consoleserverport', table: 'console_server_port' },
  power_port_count: { model: 'dcim.powerport', table: 'power_port' },
  power_outlet_count: { model: 'dcim.poweroutlet', table: 'power_outlet' },
  interface_count: { model: 'dcim.interface', table: 'interface' },
  front_port_count: { model: 'dcim.frontport', table: 'front_port' },
  rear_port_count: { model: 'dcim.rearport', table: 'rear_port' },
  device_bay_count: { model: 'dcim.devicebay', table: 'device_bay' },
  module_bay_count: { model: 'dcim.modulebay', table: 'module_bay' },
  inventory_item_count: { model: 'dcim.inventoryitem', table: 'inventory_item' },
};

/**
 * NetBox's Device (§2.13). `role` is written as `role` or by its deprecated
 * name `device_role`, and read as both. Component counts are counted (not
 * stored counters): they are always present, as NetBox's counters are.
 */
export const device: ModelDef = defineModel({
  label: 'dcim.device',
  endpoint: 'devices',
  verboseName: 'device',
  fields: {
    name: f.string(64, { nullable: true, natural: true, iexactFilter: true }),
    device_type: f.fk('dcim.devicetype', 'PROTECT', {
      required: true,
      hops: [
        { name: 'manufacturer', via: 'manufacturer', to: 'dcim.manufacturer', key: 'slug' },
        { name: 'manufacturer_id', via: 'manufacturer', to: 'dcim.manufacturer', key: 'id' },
      ],
    }),
    role: f.fk('dcim.devicerole', 'PROTECT', { required: true }),
    device_role: f.fk('dcim.devicerole', 'PROTECT', { virtual: true, readOnly: true, filter: false, orderable: false, aliasOf: 'role' }),
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    platform: f.fk('dcim.platform', 'SET_NULL'),
    serial: f.string(50, { label: 'serial number', iexactFilter: true }),
    asset_tag: f.string(50, { nullable: true, unique: 'Device with this Asset tag already exists.' }),
    site: f.fk('dcim.site', 'PROTECT', { required: true, hops: SITE_SCOPE_HOPS }),
    location: f.fk('dcim.location', 'PROTECT', { nullable: true, filterKey: null, treeFilter: true }),
    rack: f.fk('dcim.rack', 'PROTECT', { nullable: true, filterKey: null }),
    position: f.decimal({ maxDigits: 4, decimalPlaces: 1, nullable: true, min: 1, max: 100.5 }),
    face: f.choice(DEVICE_FACE, { blank: true, singleFilter: true, label: 'rack face' }),
    latitude: f.decimal({ maxDigits: 8, decimalPlaces: 6, nullable: true, min: -90, max: 90 }),
    longitude: f.decimal({ maxDigits: 9, decimalPlaces: 6, nullable: true, min: -180, max: 180 }),
    parent_device: f.json({ virtual: true, readOnly: true, filter: false, orderable: false }),
    status: f.choice(DEVICE_STATUS, { default: 'active', nullable: false }),
    airflow: f.choice(DEVICE_AIRFLOW, { blank: true, singleFilter: true }),
    primary_ip: f.fk('ipam.ipaddress', 'SET_NULL', { virtual: true, readOnly: true, filter: false, orderable: false }),
    primary_ip4: f.fk('ipam.ipaddress', 'SET_NULL', { filterKey: null, label: 'primary IPv4' }),
    primary_ip6: f.fk('ipam.ipaddress', 'SET_NULL', { filterKey: null, label: 'primary IPv6' }),
    oob_ip: f.fk('ipam.ipaddress', 'SET_NULL', { filterKey: null, label: 'out-of-band IP' }),
    cluster: f.fk('virtualization.cluster', 'SET_NULL', { filterKey: null }),
    virtual_chassis: f.fk('dcim.virtualchassis', 'SET_NULL', { filterKey: null }),
    vc_position: f.integer({ nullable: true, min: 0, max: 255, label: 'VC position' }),
    vc_priority: f.integer({ nullable: true, min: 0, max: 255, label: 'VC priority' }),
    description: f.description(),
    comments: f.comments(),
    config_template: f.fk('extras.configtemplate', 'PROTECT', { nullable: true, filterKey: null }),
    local_context_data: f.json({ nullable: true, shape: 'object', filter: false }),
  },
  brief: ['name'],
  display: deviceDisplay,
  ordering: ['name', 'id'],
  search: ['name', 'serial', 'asset_tag', 'description', 'comments'],
  unique: [
    { fields: ['name', 'site', 'tenant'], caseInsensitive: true, message: 'Constraint “dcim_device_unique_name_site_tenant” is violated.' },
    { fields: ['name', 'site'], caseInsensitive: true, whenNull: ['tenant'], errorField: 'name', message: 'Device name must be unique per site.' },
    { fields: ['rack', 'position', 'face'], message: 'Device with this Rack, Position and Face already exists.' },
    { fields: ['virtual_chassis', 'vc_position'], message: 'Device with this Virtual chassis and VC position already exists.' },
  ],
  counts: Object.fromEntries(Object.entries(DEVICE_COMPONENT_COUNTS).map(([name, c]) => [name, { model: c.model, field: 'device' }])),
  filters: (ctx) => deviceFilters(ctx),
  hooks: {
    validate: (row, existing, wctx) => checkDevice(row, existing, wctx),
    beforeSave: (columns, existing, wctx) => deviceDefaults(columns, existing, wctx),
    afterSave: async (saved, wctx) => {
      const created = createdOf(saved).map((s) => s.id);
      // an import brings the source's own components (their ids kept), not new ones from the templates
      if (created.length && !wctx.importing) await instantiateComponents(created, wctx);
      for (const s of saved) if (s.existing) await moveChildren(s.id, s.columns, s.existing, wctx);
    },
    decorate: (rows, out, c) => decorateDevices(rows, out, c),
    // its interfaces' wireless links go with it (NetBox's WirelessLink._interface_a_device CASCADE)
    beforeDelete: (ids, wctx) => deleteDeviceLinks(ids, wctx),
    // what other services keep of a device (a journal entry's assigned object) is the seed's nested device too
    nested: (n) => ({ ...n, display_name: n.display }),
  },
  contacts: true,
  // the config contexts matching the device (its site's region and group at any depth, site, location, type, role, platform, cluster and its type and group, tenant and its group, tags)
  configContext: {
    reads: ['virtualization.cluster', 'tenancy.tenantgroup'],
    criteria: (ctx) => ({
      regions: treeIds(ctx, 'dcim.region', relatedId(ctx, 'dcim.site', sql`t.site_id`, 'region')),
      site_groups: treeIds(ctx, 'dcim.sitegroup', relatedId(ctx, 'dcim.site', sql`t.site_id`, 'group')),
      sites: ids(sql`t.site_id`),
      locations: treeIds(ctx, 'dcim.location', sql`t.location_id`),
      device_types: ids(sql`t.device_type_id`),
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

/** NetBox's Device.__str__, as the API's `display` (§2.13). */
function deviceDisplay(row: Row, rep: Row): string {
  if (row.name && row.asset_tag) return `${String(row.name)} (${String(row.asset_tag)})`;
  if (row.name) return String(row.name);
  const vc = rep.virtual_chassis as Row | null | undefined;
  if (vc) return row.asset_tag ? `${String(vc.name)}:${String(row.vc_position)} (${String(row.asset_tag)})` : `${String(vc.name)}:${String(row.vc_position)} (${String(row.id)})`;
  const dt = rep.device_type as Row | null | undefined;
  const maker = (dt?.manufacturer as Row | undefined)?.name ?? '';
  const type = `${String(maker)} ${String(dt?.model ?? '')}`;
  return row.asset_tag ? `${type} (${String(row.asset_tag)})` : `${type} (${String(row.id)})`;
}

/** The filters of §2.13 the fields do not generate. */
function deviceFilters(ctx: ServiceContext): FilterDef[] {
  const table = (name: string) => raw(ctx.db.table(name));
  const has = (name: string) => sql`EXISTS (SELECT 1 FROM ${table(name)} x WHERE x.device_id = t.id)`;
  return [
    searchFilter((p) => [
      sql`t.name ILIKE ${p}`,
      sql`t.serial ILIKE ${p}`,
      sql`t.asset_tag ILIKE ${p}`,
      sql`t.description ILIKE ${p}`,
      sql`t.comments ILIKE ${p}`,
      sql`EXISTS (SELECT 1 FROM ${table('inventory_item')} i WHERE i.device_id = t.id AND i.serial ILIKE ${p})`,
    ]),
    { kind: 'relation', name: 'device_role', expr: sql`t.role_id`, resolve: keyResolver(ctx, 'dcim.devicerole', 'slug', false), keyType: 'string' },
    { kind: 'relation', name: 'device_role_id', expr: sql`t.role_id`, resolve: keyResolver(ctx, 'dcim.devicerole', 'id', false), keyType: 'integer' },
    { kind: 'relation', name: 'model', expr: sql`t.device_type_id`, resolve: keyResolver(ctx, 'dcim.devicetype', 'slug', false), keyType: 'string' },
    {
      kind: 'relation',
      name: 'parent_device_id',
      expr: sql`(SELECT b.device_id FROM ${table('device_bay')} b WHERE b.installed_device_id = t.id)`,
      resolve: keyResolver(ctx, 'dcim.device', 'id', false),
      keyType: 'integer',
    },
    { kind: 'boolean', name: 'is_full_depth', expr: sql`(SELECT dt.is_full_depth FROM ${table('device_type')} dt WHERE dt.id = t.device_type_id)` },
    {
      kind: 'method',
      name: 'mac_address',
      lookups: ['n', 'ic', 'nic', 'iew', 'niew', 'isw', 'nisw', 'ie', 'nie'],
      apply: (values, lookup) => macFilter(ctx, values, lookup),
    },
    { kind: 'boolean', name: 'has_primary_ip', expr: sql`(t.primary_ip4_id IS NOT NULL OR t.primary_ip6_id IS NOT NULL)` },
    { kind: 'boolean', name: 'has_oob_ip', expr: sql`(t.oob_ip_id IS NOT NULL)` },
    { kind: 'boolean', name: 'virtual_chassis_member', expr: sql`(t.virtual_chassis_id IS NOT NULL)` },
    { kind: 'boolean', name: 'console_ports', expr: has('console_port') },
    { kind: 'boolean', name: 'console_server_ports', expr: has('console_server_port') },
    { kind: 'boolean', name: 'power_ports', expr: has('power_port') },
    { kind: 'boolean', name: 'power_outlets', expr: has('power_outlet') },
    { kind: 'boolean', name: 'interfaces', expr: has('interface') },
    { kind: 'boolean', name: 'pass_through_ports', expr: or([has('front_port'), has('rear_port')]) },
    { kind: 'boolean', name: 'module_bays', expr: has('module_bay') },
    { kind: 'boolean', name: 'device_bays', expr: has('device_bay') },
    { kind: 'boolean', name: 'local_context_data', expr: sql`(t.local_context_data IS NOT NULL)` },
  ];
}

/** `mac_address` (+ string lookups): some interface of the device has a matching MAC. */
function macFilter(ctx: ServiceContext, values: string[], lookup: string | null) {
  const list = values.map((v) => v.trim().toLowerCase()).filter(Boolean);
  if (!list.length) return undefined;
  const negated = lookup !== null && lookup.startsWith('n');
  const op = negated ? lookup!.slice(1) : lookup;
  const patterns = list.map((v) => {
    const esc = v.replace(/[\\%_]/g, (m) => `\\${m}`);
    if (op === 'ic') return `%${esc}%`;
    if (op === 'iew') return `%${esc}`;
    if (op === 'isw') return `${esc}%`;
    return esc;
  });
  const any = sql`EXISTS (SELECT 1 FROM ${raw(ctx.db.table('interface'))} i WHERE i.device_id = t.id AND lower(i.mac_address::text) LIKE ANY(${patterns}::text[]))`;
  return negated ? sql`NOT ${any}` : excludedBy(lookup, any);
}
