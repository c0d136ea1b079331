import { ValidationError } from '@inventory/core';
import { sql, raw, or, type FilterDef } from '@inventory/filtering';
import { capture, defineModel, f, keyResolver, noteTouched, projection, type ModelDef, type Row, type ServiceContext, type Touched, type WriteContext, decorateL2vpnTermination, l2vpnFilters, L2VPN_READS } from '@inventory/rest';
import { INTERFACE_MODE } from './choices';
import { macFilter, normalizeMac } from './mac';
import { MACHINE_CLUSTER_HOPS } from './scope';
import { virtualMachine } from './virtual-machines';

/** A component's machine: required, deleted with it, `?virtual_machine=<name>`, and the machine's cluster. */
const machine = () => f.fk('virtualization.virtualmachine', 'CASCADE', { required: true, filterKey: 'name', hops: MACHINE_CLUSTER_HOPS });

/** NetBox's VMInterface. */
export const vmInterface: ModelDef = defineModel({
  label: 'virtualization.vminterface',
  endpoint: 'interfaces',
  table: 'vm_interface',
  verboseName: 'interface',
  schemaName: 'VMInterface',
  fields: {
    virtual_machine: machine(),
    name: f.name(64, { natural: true }),
    enabled: f.boolean(true),
    parent: f.fk('virtualization.vminterface', 'PROTECT', { nullable: true, filterKey: null, label: 'parent interface' }),
    bridge: f.fk('virtualization.vminterface', 'SET_NULL', { filterKey: null, label: 'bridge interface' }),
    mtu: f.integer({ nullable: true, min: 1, max: 65536, label: 'MTU' }),
    // NetBox's MultiValueMACAddressFilter (below), not a text filter
    mac_address: f.string(17, { nullable: true, filter: false, label: 'MAC address' }),
    description: f.description(),
    mode: f.choice(INTERFACE_MODE, { blank: true, label: '802.1Q mode' }),
    untagged_vlan: f.fk('ipam.vlan', 'SET_NULL', { filter: false, label: 'untagged VLAN' }),
    tagged_vlans: f.m2m('ipam.vlan', 'vm_interface_tagged_vlans', { filter: false, label: 'tagged VLANs' }),
    vrf: f.fk('ipam.vrf', 'SET_NULL', { filterKey: 'rd', label: 'VRF' }),
    // its L2VPN termination (vpn's, served by ipam), nested, from this service's projection (decorate)
    l2vpn_termination: f.json({ readOnly: true, virtual: true, filter: false, orderable: false, label: 'L2VPN termination' }),
  },
  brief: ['virtual_machine', 'name'],
  display: (row) => String(row.name),
  ordering: ['virtual_machine', 'name'],
  search: ['name', 'description'],
  unique: [{ fields: ['virtual_machine', 'name'], message: 'Interface with this Virtual machine and Name already exists.' }],
  // ipam's addresses name their interface by a generic relation (NetBox's assigned_object_type and _id); 0 until ipam serves them
  counts: {
    count_ipaddresses: { model: 'ipam.ipaddress', field: 'assigned_object_id', where: `c.data->>'assigned_object_type' = 'virtualization.vminterface'` },
    count_fhrp_groups: { model: 'ipam.fhrpgroupassignment', field: 'interface_id', where: `c.data->>'interface_type' = 'virtualization.vminterface'` },
  },
  filters: (ctx) => [...interfaceFilters(ctx), ...l2vpnFilters(ctx, 'virtualization.vminterface')],
  reads: L2VPN_READS,
  hooks: {
    decorate: (rows, out, c) => decorateL2vpnTermination('virtualization.vminterface', rows, out, c),
    validate: (row, existing, wctx) => checkInterface(row, existing, wctx),
    beforeSave: (columns, existing, wctx) => applyMode(columns, existing, wctx),
  },
});

export const virtualDisk: ModelDef = defineModel({
  label: 'virtualization.virtualdisk',
  endpoint: 'virtual-disks',
  table: 'virtual_disk',
  verboseName: 'virtual disk',
  fields: {
    virtual_machine: machine(),
    name: f.name(64, { natural: true }),
    description: f.description(),
    size: f.integer({ required: true, min: 0, max: 2147483647, label: 'size (GB)' }),
  },
  brief: ['virtual_machine', 'name', 'size'],
  display: (row) => String(row.name),
  ordering: ['virtual_machine', 'name'],
  search: ['name', 'description'],
  unique: [{ fields: ['virtual_machine', 'name'], message: 'Virtual disk with this Virtual machine and Name already exists.' }],
  hooks: {
    afterWrite: (touched, wctx) => updateDiskTotals(touched, wctx),
  },
});

function interfaceFilters(ctx: ServiceContext): FilterDef[] {
  const tagged = raw(ctx.db.table('vm_interface_tagged_vlans'));
  const vlans = projection(ctx, 'ipam.vlan');
  // the untagged VLAN or one of the tagged ones is among `ids`
  const onVlans = (ids: number[]) =>
    or([sql`t.untagged_vlan_id = ANY(${ids}::bigint[])`, sql`EXISTS (SELECT 1 FROM ${tagged} l WHERE l.owner_id = t.id AND l.target_id = ANY(${ids}::bigint[]))`]);
  return [
    macFilter('mac_address', sql`t.mac_address`, (cond) => sql`COALESCE(${cond}, FALSE)`),
    {
      kind: 'method',
      name: 'vlan_id',
      valueType: 'integer',
      apply: async (values) => {
        const found = await keyResolver(ctx, 'ipam.vlan', 'id', false)(values);
        return onVlans(values.flatMap((v) => found.get(v) ?? []));
      },
    },
    {
      // by VID: any VLAN of that number
      kind: 'method',
      name: 'vlan',
      valueType: 'integer',
      apply: async (values) => {
        const vid = Number(values[values.length - 1]);
        if (!Number.isInteger(vid)) return undefined;
        const rows = await ctx.db.query(sql`SELECT id FROM ${vlans} WHERE NOT deleted AND (data->>'vid')::integer = ${vid}`);
        return onVlans(rows.map((r) => Number(r.id)));
      },
    },
  ];
}

const isSet = (v: unknown) => v !== null && v !== undefined;

/** An interface's name and machine (with the machine's name and site). */
async function interfaceRow(wctx: WriteContext, id: unknown): Promise<Row | undefined> {
  if (!isSet(id)) return undefined;
  const db = wctx.service.db;
  const [hit] = await wctx.tx.query(
    sql`SELECT i.id, i.name, i.virtual_machine_id, m.name AS machine FROM ${raw(db.table(vmInterface.table))} i
          JOIN ${raw(db.table(virtualMachine.table))} m ON m.id = i.virtual_machine_id WHERE i.id = ${id}`,
  );
  return hit;
}

/** NetBox's VMInterface.clean(): parent and bridge on the same machine (and not the interface itself), the untagged VLAN global or in the machine's site. */
async function checkInterface(row: Row, existing: Row | null, wctx: WriteContext): Promise<void> {
  await checkTaggedVlans(row, wctx);
  if (isSet(row.mac_address) && normalizeMac(String(row.mac_address)) === null) {
    throw new ValidationError({ mac_address: [`Invalid MAC address format: ${String(row.mac_address)}`] });
  }
  const same = (other: Row) => String(other.virtual_machine_id) === String(row.virtual_machine_id);
  if (existing && isSet(row.parent_id) && Number(row.parent_id) === Number(existing.id)) {
    throw new ValidationError({ parent: ['An interface cannot be its own parent.'] });
  }
  const parent = await interfaceRow(wctx, row.parent_id);
  if (parent && !same(parent)) {
    throw new ValidationError({
      parent: [`The selected parent interface (${String(parent.name)}) belongs to a different virtual machine (${String(parent.machine)}).`],
    });
  }
  if (existing && isSet(row.bridge_id) && Number(row.bridge_id) === Number(existing.id)) {
    throw new ValidationError({ bridge: ['An interface cannot be bridged to itself.'] });
  }
  const bridge = await interfaceRow(wctx, row.bridge_id);
  if (bridge && !same(bridge)) {
    throw new ValidationError({
      bridge: [`The selected bridge interface (${String(bridge.name)}) belongs to a different virtual machine (${String(bridge.machine)}).`],
    });
  }
  if (isSet(row.untagged_vlan_id)) {
    const [vlan] = await wctx.tx.query(
      sql`SELECT v.data->>'site' AS site, v.nested->>'display' AS display, m.site_id FROM ${projection(wctx.service, 'ipam.vlan')} v,
             ${raw(wctx.service.db.table(virtualMachine.table))} m WHERE v.id = ${row.untagged_vlan_id} AND m.id = ${row.virtual_machine_id}`,
    );
    if (vlan && isSet(vlan.site) && String(vlan.site) !== String(vlan.site_id ?? '')) {
      throw new ValidationError({
        untagged_vlan: [
          `The untagged VLAN (${String(vlan.display)}) must belong to the same site as the interface's parent virtual machine, or it must be global.`,
        ],
      });
    }
  }
}

/** NetBox's VMInterfaceSerializer.validate(): each tagged VLAN this request writes is global or in the machine's site. */
async function checkTaggedVlans(row: Row, wctx: WriteContext): Promise<void> {
  const tagged = row.tagged_vlans as number[] | undefined;
  if (!tagged?.length) return;
  const vlans = await wctx.tx.query(
    sql`SELECT v.data->>'site' AS site, v.nested->>'display' AS display, m.site_id FROM ${projection(wctx.service, 'ipam.vlan')} v,
           ${raw(wctx.service.db.table(virtualMachine.table))} m
         WHERE v.id = ANY(${tagged}::bigint[]) AND m.id = ${row.virtual_machine_id} ORDER BY array_position(${tagged}::bigint[], v.id)`,
  );
  const stray = vlans.find((v) => isSet(v.site) && String(v.site) !== String(v.site_id ?? ''));
  if (stray) {
    throw new ValidationError({
      tagged_vlans: [`VLAN ${String(stray.display)} must belong to the same site as the interface's parent virtual machine, or it must be global.`],
    });
  }
}

/**
 * NetBox's BaseInterface.save(): the MAC address in its canonical form; no
 * 802.1Q mode, no untagged VLAN; an interface whose mode is not `tagged`
 * loses its tagged VLANs (a list sent in the same request is written after
 * this, as in NetBox).
 */
async function applyMode(columns: Row, existing: Row | null, wctx: WriteContext): Promise<void> {
  if (isSet(columns.mac_address)) columns.mac_address = normalizeMac(String(columns.mac_address));
  const mode = 'mode' in columns ? columns.mode : existing?.mode;
  if (!mode) {
    if (isSet(columns.untagged_vlan_id) || isSet(existing?.untagged_vlan_id)) columns.untagged_vlan_id = null;
  }
  if (existing && mode !== 'tagged') {
    await wctx.tx.query(sql`DELETE FROM ${raw(wctx.service.db.table('vm_interface_tagged_vlans'))} WHERE owner_id = ${existing.id}`);
  }
}

/**
 * NetBox's update_virtualmachine_disk signal: after virtual disks are
 * created, changed or deleted, each machine they belong to (or belonged to)
 * has the total of its disks' sizes as its disk, null when none remain. The
 * machine's change is recorded with the write.
 */
async function updateDiskTotals(touched: Touched, wctx: WriteContext): Promise<void> {
  const { tx, service } = wctx;
  const disks = raw(service.db.table(virtualDisk.table));
  const machines = raw(service.db.table(virtualMachine.table));
  const ids = new Set<number>();
  for (const r of [...(touched.updated ?? []), ...(touched.deleted ?? [])]) ids.add(Number(r.virtual_machine_id));
  const live = [...(touched.created ?? []), ...(touched.updated ?? []).map((r) => Number(r.id))];
  if (live.length) {
    for (const r of await tx.query(sql`SELECT DISTINCT virtual_machine_id FROM ${disks} WHERE id = ANY(${live}::bigint[])`)) ids.add(Number(r.virtual_machine_id));
  }
  if (!ids.size) return;
  const rows = await tx.query(sql`SELECT * FROM ${machines} WHERE id = ANY(${[...ids]}::bigint[]) ORDER BY id FOR UPDATE`);
  if (!rows.length) return;
  await capture(service, virtualMachine, wctx, rows);
  const changed = await tx.query(
    sql`UPDATE ${machines} m SET disk = d.total, _version = m._version + 1, last_updated = now()
          FROM (SELECT x.id, (SELECT sum(size) FROM ${disks} WHERE virtual_machine_id = x.id) AS total FROM unnest(${rows.map((r) => Number(r.id))}::bigint[]) AS x(id)) d
         WHERE m.id = d.id AND m.disk IS DISTINCT FROM d.total RETURNING m.id`,
  );
  const done = new Set(changed.map((r) => Number(r.id)));
  const updated = rows.filter((r) => done.has(Number(r.id)));
  if (updated.length) noteTouched(wctx, virtualMachine, { updated });
}
