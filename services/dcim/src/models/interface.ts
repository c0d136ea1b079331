import { ValidationError } from '@inventory/core';
import { sql, raw, or, excludedBy, stringLookup, type FilterDef } from '@inventory/filtering';
import { f, keyResolver, projectedModels, projection, type ModelDef, type Row, type ServiceContext, type WriteContext, decorateL2vpnTermination, memo, l2vpnFilters, L2VPN_READS } from '@inventory/rest';
import { INTERFACE_TYPE, POE_MODE, POE_TYPE, WIRELESS_INTERFACE_TYPES, WIRELESS_ROLE } from './component-choices';
import { INTERFACE_DUPLEX, INTERFACE_MODE, VIRTUAL_INTERFACE_TYPES, WIRELESS_CHANNEL, channelAttr } from './cable-choices';
import { component, componentName } from './component';
import { decorateCabled } from '../cabling/cabled';

const typeLabel = (type: unknown) => INTERFACE_TYPE.find(([v]) => v === type)?.[1] ?? String(type);

/** An EUI-48 in NetBox's form (`AA:BB:CC:DD:EE:FF`) from any netaddr-parsable spelling; null when it is none. */
export function parseMac(value: string, octets = 6): string | null {
  const hex = value.trim().replace(/[:.\- ]/g, '');
  if (!new RegExp(`^[0-9a-fA-F]{${octets * 2}}$`).test(hex)) return null;
  return hex.toUpperCase().match(/../g)!.join(':');
}

const interfaceDecorate = decorateCabled(true, true, true);

export const iface: ModelDef = component({
  label: 'dcim.interface',
  endpoint: 'interfaces',
  table: 'interface',
  verboseName: 'interface',
  pathEndpoint: true,
  brief: ['connection_status'],
  // NetBox's wire order puts the interface's virtual device contexts between its device and module
  beforeModule: {
    vdcs: f.m2m('dcim.virtualdevicecontext', 'interface_vdcs', { idFilter: 'vdc_id', filterKey: null, label: 'virtual device contexts' }),
  },
  fields: {
    type: f.choice(INTERFACE_TYPE, { required: true, nullable: false }),
    enabled: f.boolean(true),
    parent: f.fk('dcim.interface', 'SET_NULL', { filterKey: null, label: 'parent interface' }),
    bridge: f.fk('dcim.interface', 'SET_NULL', { filterKey: null, label: 'bridge interface' }),
    lag: f.fk('dcim.interface', 'SET_NULL', { filterKey: null, label: 'parent LAG' }),
    mtu: f.integer({ nullable: true, min: 1, max: 65536 }),
    mac_address: f.string(18, { nullable: true, filter: false, label: 'MAC address' }),
    speed: f.integer({ nullable: true, min: 0, max: 2147483647, label: 'speed (Kbps)' }),
    duplex: f.choice(INTERFACE_DUPLEX, { blank: true }),
    wwn: f.string(24, { nullable: true, filter: false, label: 'WWN' }),
    mgmt_only: f.boolean(false, { label: 'management only' }),
  },
  after: {
    mode: f.choice(INTERFACE_MODE, { blank: true, singleFilter: true, label: '802.1Q mode' }),
    rf_role: f.choice(WIRELESS_ROLE, { blank: true, label: 'wireless role' }),
    rf_channel: f.choice(WIRELESS_CHANNEL, { blank: true, label: 'wireless channel' }),
    poe_mode: f.choice(POE_MODE, { blank: true, label: 'PoE mode' }),
    poe_type: f.choice(POE_TYPE, { blank: true, label: 'PoE type' }),
    rf_channel_frequency: f.decimal({ maxDigits: 7, decimalPlaces: 2, nullable: true, label: 'channel frequency (MHz)' }),
    rf_channel_width: f.decimal({ maxDigits: 7, decimalPlaces: 3, nullable: true, label: 'channel width (MHz)' }),
    tx_power: f.integer({ nullable: true, min: 0, max: 127, label: 'transmit power (dBm)' }),
    // ipam's VLANs (another service): read from dcim's projection of them
    untagged_vlan: f.fk('ipam.vlan', 'SET_NULL', { filterKey: null, filter: false, label: 'untagged VLAN' }),
    tagged_vlans: f.m2m('ipam.vlan', 'interface_tagged_vlans', { filterKey: null, filter: false, label: 'tagged VLANs' }),
  },
  tail: {
    // the wireless link joining it (set by the link's save, cleared by its delete: NetBox's signals) and its wireless LANs (written as ids)
    wireless_link: f.fk('wireless.wirelesslink', 'SET_NULL', { readOnly: true, filter: false, filterKey: null, label: 'wireless link' }),
    wireless_lans: f.m2m('wireless.wirelesslan', 'interface_wireless_lans', { filter: false, filterKey: null, label: 'wireless LANs' }),
    vrf: f.fk('ipam.vrf', 'SET_NULL', { filterKey: null, label: 'VRF' }),
    // its L2VPN termination (vpn's, served by ipam), nested, from dcim's projection (decorate)
    l2vpn_termination: f.json({ readOnly: true, virtual: true }),
  },
  filters: (ctx) => [...interfaceFilters(ctx), ...l2vpnFilters(ctx, 'dcim.interface')],
  reads: L2VPN_READS,
  // ipam's addresses and FHRP group assignments name their interface by a generic relation: counted from dcim's projections of them
  counts: {
    count_ipaddresses: { model: 'ipam.ipaddress', field: 'assigned_object_id', where: `c.data->>'assigned_object_type' = 'dcim.interface'` },
    count_fhrp_groups: { model: 'ipam.fhrpgroupassignment', field: 'interface_id', where: `c.data->>'interface_type' = 'dcim.interface'` },
  },
  validate: (row, existing, wctx, body) => checkInterface(row, existing, wctx, body),
  hooks: {
    beforeSave: (columns, existing) => normalizeInterface(columns, existing),
    decorate: async (rows, out, c) => {
      if (!c.brief) {
        out.forEach((o) => {
          if ('l2vpn_termination' in o) o.l2vpn_termination = null;
        });
      }
      await decorateL2vpnTermination('dcim.interface', rows, out, c);
      await interfaceDecorate(rows, out, c);
    },
    afterSave: async (saved, wctx) => {
      // Interface.save(): only 802.1Q "tagged" interfaces keep tagged VLANs (an update's; a create stores none untagged)
      const untagged = saved.filter((s) => s.existing && { ...s.existing, ...s.columns }.mode !== 'tagged').map((s) => s.id);
      if (untagged.length) await wctx.tx.query(sql`DELETE FROM ${raw(wctx.service.db.table('interface_tagged_vlans'))} WHERE owner_id = ANY(${untagged}::bigint[])`);
    },
  },
});

const isSet = (v: unknown) => v !== null && v !== undefined && v !== '';

/** Interface.save() and the serializer's own rules on stored values. */
function normalizeInterface(columns: Row, existing: Row | null): void {
  const merged = { ...(existing ?? {}), ...columns };
  for (const [key, octets] of [['mac_address', 6], ['wwn', 8]] as const) {
    if (!(key in columns)) continue;
    const v = columns[key];
    columns[key] = typeof v === 'string' && v.trim() !== '' ? parseMac(v, octets) : null;
  }
  // no 802.1Q mode: no untagged VLAN
  if (!merged.mode && isSet(merged.untagged_vlan_id)) columns.untagged_vlan_id = null;
  // a channel sets its frequency and width
  if (merged.rf_channel && typeof merged.rf_channel === 'string') {
    if (!isSet(merged.rf_channel_frequency)) columns.rf_channel_frequency = channelAttr(merged.rf_channel, 'frequency');
    if (!isSet(merged.rf_channel_width)) columns.rf_channel_width = channelAttr(merged.rf_channel, 'width');
  }
}

interface Peer {
  id: number;
  name: string;
  label: string;
  device_id: number;
  device: string;
  vc: string | null;
  vc_name: string | null;
}

async function peerInterface(wctx: WriteContext, id: unknown): Promise<Peer | undefined> {
  if (!isSet(id)) return undefined;
  const db = wctx.service.db;
  const [hit] = await wctx.tx.query(
    sql`SELECT i.id, i.name, i.label, i.device_id, COALESCE(d.name, '') AS device, to_jsonb(d)->>'virtual_chassis_id' AS vc
          FROM ${raw(db.table('interface'))} i JOIN ${raw(db.table('device'))} d ON d.id = i.device_id WHERE i.id = ${id}`,
  );
  return hit as unknown as Peer | undefined;
}

/** Interface.clean() and InterfaceSerializer.validate(), with NetBox's messages and fields. */
async function checkInterface(row: Row, existing: Row | null, wctx: WriteContext, body: Row): Promise<void> {
  const type = String(row.type ?? '');
  const virtual = VIRTUAL_INTERFACE_TYPES.has(type);
  const wireless = WIRELESS_INTERFACE_TYPES.has(type);
  const self = existing ? Number(existing.id) : null;
  const fail = (field: string, message: string) => {
    throw new ValidationError({ [field]: [message] });
  };
  if (virtual && isSet(row.cable_id)) fail('type', `${typeLabel(type)} interfaces cannot have a cable attached.`);
  if (virtual && row.mark_connected) fail('mark_connected', `${typeLabel(type)} interfaces cannot be marked as connected.`);

  // once per device and write: a bulk create's interfaces mostly share a few devices, which the write does not change
  const [own] = await memo(wctx, `interface-device:${String(row.device_id)}`, () =>
    wctx.tx.query(sql`SELECT d.site_id, to_jsonb(d)->>'virtual_chassis_id' AS vc FROM ${raw(wctx.service.db.table('device'))} d WHERE d.id = ${row.device_id}`),
  );
  const ownVc = own?.vc ?? null;
  const sameDeviceRule = (field: string, what: string, peer: Peer, differentDevice: string) => {
    if (String(peer.device_id) === String(row.device_id)) return;
    if (ownVc === null) fail(field, differentDevice);
    else if (peer.vc !== ownVc) fail(field, `The selected ${what} interface (${componentName(peer as unknown as Row)}) belongs to ${peer.device}, which is not part of virtual chassis ${String(ownVc)}.`);
  };

  if (self !== null && Number(row.parent_id) === self) fail('parent', 'An interface cannot be its own parent.');
  if (type !== 'virtual' && isSet(row.parent_id)) fail('parent', 'Only virtual interfaces may be assigned to a parent interface.');
  const parent = await peerInterface(wctx, row.parent_id);
  if (parent) sameDeviceRule('parent', 'parent', parent, `The selected parent interface (${componentName(parent as unknown as Row)}) belongs to a different device (${parent.device})`);

  if (self !== null && Number(row.bridge_id) === self) fail('bridge', 'An interface cannot be bridged to itself.');
  const bridge = await peerInterface(wctx, row.bridge_id);
  if (bridge) sameDeviceRule('bridge', 'bridge', bridge, `The selected bridge interface (${componentName(bridge as unknown as Row)}) belongs to a different device (${bridge.device}).`);

  if (type === 'virtual' && isSet(row.lag_id)) fail('lag', 'Virtual interfaces cannot have a parent LAG interface.');
  if (self !== null && Number(row.lag_id) === self) fail('lag', 'A LAG interface cannot be its own parent.');
  const lag = await peerInterface(wctx, row.lag_id);
  if (lag) sameDeviceRule('lag', 'LAG', lag, `The selected LAG interface (${componentName(lag as unknown as Row)}) belongs to a different device (${lag.device}).`);

  if (row.poe_mode && virtual) fail('poe_mode', 'Virtual interfaces cannot have a PoE mode.');
  if (row.poe_type && virtual) fail('poe_type', 'Virtual interfaces cannot have a PoE type.');
  if (row.poe_type && !row.poe_mode) fail('poe_type', 'Must specify PoE mode when designating a PoE type.');

  if (row.rf_role && !wireless) fail('rf_role', 'Wireless role may be set only on wireless interfaces.');
  if (row.rf_channel && !wireless) fail('rf_channel', 'Channel may be set only on wireless interfaces.');
  const channel = typeof row.rf_channel === 'string' && row.rf_channel ? row.rf_channel : null;
  if (isSet(row.rf_channel_frequency) && Number(row.rf_channel_frequency) !== 0) {
    if (!wireless) fail('rf_channel_frequency', 'Channel frequency may be set only on wireless interfaces.');
    if (channel && Number(row.rf_channel_frequency) !== channelAttr(channel, 'frequency')) fail('rf_channel_frequency', 'Cannot specify custom frequency with channel selected.');
  }
  if (isSet(row.rf_channel_width) && Number(row.rf_channel_width) !== 0) {
    if (!wireless) fail('rf_channel_width', 'Channel width may be set only on wireless interfaces.');
    if (channel && Number(row.rf_channel_width) !== channelAttr(channel, 'width')) fail('rf_channel_width', 'Cannot specify custom width with channel selected.');
  }
  for (const [key, octets, kind] of [['mac_address', 6, 'MAC address'], ['wwn', 8, 'WWN']] as const) {
    const v = row[key];
    if (typeof v === 'string' && v.trim() !== '' && !parseMac(v, octets)) fail(key, `Invalid ${kind} format: ${v}`);
  }
  await checkVlans(row, own?.site_id ?? null, wctx, body);
}

/**
 * The untagged VLAN (Interface.clean()) and each tagged VLAN written
 * (InterfaceSerializer.validate()) are global or of the device's site, read
 * from dcim's projection of ipam's VLANs.
 */
async function checkVlans(row: Row, siteId: unknown, wctx: WriteContext, body: Row): Promise<void> {
  const ctx = wctx.service;
  if (!projectedModels(ctx).has('ipam.vlan')) return;
  const untagged = isSet(row.untagged_vlan_id) ? [Number(row.untagged_vlan_id)] : [];
  const given = Array.isArray(body.tagged_vlans) ? body.tagged_vlans : [];
  const tagged = given.filter((v) => typeof v === 'number' || (typeof v === 'string' && /^\d{1,15}$/.test(v))).map(Number);
  if (!untagged.length && !tagged.length) return;
  const vlans = await wctx.tx.query(
    sql`SELECT id, data->>'site' AS site, data->>'name' AS name FROM ${projection(ctx, 'ipam.vlan')} WHERE NOT deleted AND id = ANY(${[...untagged, ...tagged]}::bigint[])`,
  );
  const foreign = (id: number) => vlans.find((v) => Number(v.id) === id && v.site !== null && String(v.site) !== String(siteId));
  const u = untagged.length ? foreign(untagged[0]) : undefined;
  if (u) {
    throw new ValidationError({
      untagged_vlan: [`The untagged VLAN (${String(u.name)}) must belong to the same site as the interface's parent device, or it must be global.`],
    });
  }
  for (const id of tagged) {
    const t = foreign(id);
    if (t) throw new ValidationError({ tagged_vlans: [`VLAN ${String(t.name)} must belong to the same site as the interface's parent device, or it must be global.`] });
  }
}

/**
 * `mac_address` / `wwn` (NetBox's MultiValueMACAddressFilter): exact values
 * in any spelling netaddr reads, compared in the stored form (an unparsable
 * one matches nothing); the text lookups compare the stored form's text.
 */
function hardwareAddress(name: 'mac_address' | 'wwn', octets: number): FilterDef {
  const column = sql`t.${raw(name)}`;
  return {
    kind: 'method',
    name,
    lookups: ['n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie'],
    apply: (values, lookup) => {
      if (lookup && lookup !== 'n') return stringLookup(column, lookup, values);
      const parsed = values.map((v) => parseMac(v, octets)).filter((v): v is string => v !== null);
      const hit = sql`${column} = ANY(${parsed}::text[])`;
      return excludedBy(lookup, sql`COALESCE(${hit}, FALSE)`);
    },
  };
}

/** `vdc` (by name) and `vdc_identifier`: interfaces assigned to a matching virtual device context. */
function vdcBy(ctx: ServiceContext, name: string, column: 'name' | 'identifier'): FilterDef {
  const links = raw(ctx.db.table('interface_vdcs'));
  const vdcs = raw(ctx.db.table('virtual_device_context'));
  return {
    kind: 'method',
    name,
    valueType: column === 'identifier' ? 'integer' : 'string',
    lookups: ['n'],
    apply: (values, lookup) => {
      const match = column === 'identifier' ? sql`v.identifier = ANY(${values.filter((v) => /^\d{1,9}$/.test(v)).map(Number)}::int[])` : sql`v.name = ANY(${values}::text[])`;
      return excludedBy(lookup, sql`EXISTS (SELECT 1 FROM ${links} l JOIN ${vdcs} v ON v.id = l.target_id WHERE l.owner_id = t.id AND ${match})`);
    },
  };
}

/** `vlan`: interfaces whose untagged VLAN or a tagged VLAN has this VID (from dcim's projection of ipam's VLANs). */
function vlanByVid(ctx: ServiceContext): FilterDef {
  const tagged = raw(ctx.db.table('interface_tagged_vlans'));
  return {
    kind: 'method',
    name: 'vlan',
    valueType: 'integer',
    apply: (values) => {
      const vids = values.filter((v) => /^\d{1,9}$/.test(v));
      if (!projectedModels(ctx).has('ipam.vlan')) return sql`FALSE`;
      const ids = sql`SELECT v.id FROM ${projection(ctx, 'ipam.vlan')} v WHERE NOT v.deleted AND v.data->>'vid' = ANY(${vids}::text[])`;
      return or([sql`t.untagged_vlan_id IN (${ids})`, sql`EXISTS (SELECT 1 FROM ${tagged} l WHERE l.owner_id = t.id AND l.target_id IN (${ids}))`]);
    },
  };
}

/** NetBox's InterfaceFilterSet beyond the generated filters: kind, related interfaces by id, speed, VLANs, VRF. */
function interfaceFilters(ctx: ServiceContext): FilterDef[] {
  const tagged = raw(ctx.db.table('interface_tagged_vlans'));
  const physical = [...VIRTUAL_INTERFACE_TYPES, ...WIRELESS_INTERFACE_TYPES];
  return [
    {
      kind: 'method',
      name: 'kind',
      apply: (values) => {
        const v = values[values.length - 1];
        if (v === 'physical') return sql`NOT (t.type = ANY(${physical}::text[]))`;
        if (v === 'virtual') return sql`t.type = ANY(${[...VIRTUAL_INTERFACE_TYPES]}::text[])`;
        if (v === 'wireless') return sql`t.type = ANY(${[...WIRELESS_INTERFACE_TYPES]}::text[])`;
        return sql`FALSE`;
      },
    },
    {
      kind: 'method',
      name: 'vlan_id',
      valueType: 'integer',
      apply: (values) => {
        const ids = values.filter((v) => /^\d+$/.test(v)).map(Number);
        return or([sql`t.untagged_vlan_id = ANY(${ids}::bigint[])`, sql`EXISTS (SELECT 1 FROM ${tagged} l WHERE l.owner_id = t.id AND l.target_id = ANY(${ids}::bigint[]))`]);
      },
    },
    { kind: 'relation', name: 'vrf', expr: sql`t.vrf_id`, keyType: 'string', resolve: keyResolver(ctx, 'ipam.vrf', 'rd', false) },
    vlanByVid(ctx),
    hardwareAddress('mac_address', 6),
    hardwareAddress('wwn', 8),
    vdcBy(ctx, 'vdc', 'name'),
    vdcBy(ctx, 'vdc_identifier', 'identifier'),
    virtualChassisMember(ctx, 'virtual_chassis_member_id', 'id'),
    virtualChassisMember(ctx, 'virtual_chassis_member', 'name'),
  ];
}

/**
 * NetBox's `virtual_chassis_member(_id)`: the interfaces of the devices named
 * (by id or by name) and, for a device in a virtual chassis, those of every
 * member of its chassis that are not management-only (Device.vc_interfaces
 * with if_master=False). Ansible finds a device's interface with it.
 */
function virtualChassisMember(ctx: ServiceContext, name: string, by: 'id' | 'name'): FilterDef {
  const devices = raw(ctx.db.table('device'));
  return {
    kind: 'method',
    name,
    ...(by === 'id' ? { valueType: 'integer' as const } : {}),
    apply: (values) => {
      const named = by === 'id' ? sql`d.id = ANY(${values.filter((v) => /^\d+$/.test(v)).map(Number)}::bigint[])` : sql`d.name = ANY(${values}::text[])`;
      return or([
        sql`t.device_id IN (SELECT d.id FROM ${devices} d WHERE ${named})`,
        sql`(NOT t.mgmt_only AND t.device_id IN (SELECT m.id FROM ${devices} d JOIN ${devices} m ON m.virtual_chassis_id = d.virtual_chassis_id WHERE ${named}))`,
      ]);
    },
  };
}
