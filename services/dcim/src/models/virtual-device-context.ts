import { sql } from '@inventory/filtering';
import { defineModel, f, TENANT_GROUP_HOPS, type ModelDef } from '@inventory/rest';
import { VDC_STATUS } from './choices';

/** NetBox 3.7's VirtualDeviceContext: a partition of a device (its interfaces may belong to several). */
export const virtualDeviceContext: ModelDef = defineModel({
  label: 'dcim.virtualdevicecontext',
  endpoint: 'virtual-device-contexts',
  table: 'virtual_device_context',
  verboseName: 'virtual device context',
  fields: {
    name: f.name(64),
    device: f.fk('dcim.device', 'PROTECT', { required: true, filterKey: 'name' }),
    identifier: f.integer({ nullable: true, min: 0, max: 32767 }),
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    primary_ip: f.fk('ipam.ipaddress', 'SET_NULL', { virtual: true, readOnly: true, filter: false, orderable: false }),
    primary_ip4: f.fk('ipam.ipaddress', 'SET_NULL', { filterKey: null, label: 'primary IPv4' }),
    primary_ip6: f.fk('ipam.ipaddress', 'SET_NULL', { filterKey: null, label: 'primary IPv6' }),
    status: f.choice(VDC_STATUS, { required: true, nullable: false }),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['name', 'identifier', 'device'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'description', 'comments'],
  counts: { interface_count: { model: 'dcim.interface', field: 'vdcs' } },
  unique: [
    { fields: ['device', 'identifier'], message: 'Virtual device context with this Device and Identifier already exists.' },
    { fields: ['device', 'name'], message: 'Virtual device context with this Device and Name already exists.' },
  ],
  filters: () => [
    { kind: 'boolean', name: 'has_primary_ip', expr: sql`(t.primary_ip4_id IS NOT NULL OR t.primary_ip6_id IS NOT NULL)` },
  ],
  hooks: {
    // NetBox's PREFER_IPV4 is false: IPv6 first
    decorate: (_rows, out, c) => {
      if (c.brief) return;
      for (const rep of out) if ('primary_ip' in rep) rep.primary_ip = rep.primary_ip6 ?? rep.primary_ip4 ?? null;
    },
  },
});
