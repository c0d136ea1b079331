import { ValidationError } from '@inventory/core';
import { excludedBy, type FilterDef, raw, sql } from '@inventory/filtering';
import { defineModel, f, formatNetwork, parseNetwork, type FieldDef, type ModelDef, type Row, type ServiceContext } from '@inventory/rest';
import { SERVICE_PROTOCOLS } from './choices';

export const PORT_MIN = 1;
export const PORT_MAX = 65535;

/** Ports sorted and compacted into runs: `22, 80-82`. */
export function portList(ports: unknown): string {
  const sorted = [...new Set((Array.isArray(ports) ? ports : []).map(Number))].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j += 1;
    runs.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return runs.join(', ');
}

/** `<name> (<protocol label>/<ports>)`, a service's and a template's string form. */
function serviceDisplay(row: Row): string {
  const label = SERVICE_PROTOCOLS.find(([v]) => v === row.protocol)?.[1] ?? String(row.protocol);
  return `${String(row.name)} (${label}/${portList(row.ports)})`;
}

/** Each port 1…65535, errors by index as DRF's ListField reports them (`{"ports": {"0": [...]}}`). */
function checkPorts(row: Row): void {
  const ports = Array.isArray(row.ports) ? row.ports.map(Number) : [];
  const errors: Record<string, string[]> = {};
  ports.forEach((p, i) => {
    if (p < PORT_MIN) errors[i] = [`Ensure this value is greater than or equal to ${PORT_MIN}.`];
    else if (p > PORT_MAX) errors[i] = [`Ensure this value is less than or equal to ${PORT_MAX}.`];
  });
  if (Object.keys(errors).length) throw new ValidationError({ ports: errors as unknown as string[] });
}

/** `?port=<n>`: services whose ports include it (one value). */
const portFilter: FilterDef = {
  kind: 'method',
  name: 'port',
  valueType: 'integer',
  apply: (values) => {
    const v = values[values.length - 1];
    if (v === undefined || !/^\d{1,9}$/.test(v)) throw new ValidationError({ port: ['Enter a number.'] });
    return sql`${Number(v)}::bigint = ANY(t.ports)`;
  },
};

/** Fields a service and its template share. */
const common = (): Record<string, FieldDef> => ({
  ports: f.array('integer', { required: true }),
  // the nested form names it bare (a stock DRF choice field in NetBox's nested serializers)
  protocol: f.choice(SERVICE_PROTOCOLS, { required: true, singleFilter: true, briefPlain: true }),
  description: f.description(),
  comments: f.comments(),
});

/** A service's own fields in NetBox's order: its IP addresses come after the protocol. */
function serviceFields(): Record<string, FieldDef> {
  const { ports, protocol, description, comments } = common();
  return {
    ports,
    protocol,
    // ids on write, nested IP addresses on read (not checked against the device or machine, as in NetBox)
    ipaddresses: f.m2m('ipam.ipaddress', 'service_ipaddresses', { idFilter: 'ipaddress_id', filterKey: null, label: 'IP addresses' }),
    description,
    comments,
  };
}

/**
 * `?ipaddress=<address>`: services holding that IP address, named as stored
 * (with its mask, `192.0.2.1/24`; a bare address is a /32 or /128), any of
 * the values; `ipaddress__n` excludes them. A value naming no address is a
 * 400, as NetBox's model choice filter.
 */
function ipaddressFilter(ctx: ServiceContext): FilterDef {
  const links = raw(ctx.db.table('service_ipaddresses'));
  const addresses = raw(ctx.db.table('ip_address'));
  return {
    kind: 'method',
    name: 'ipaddress',
    lookups: ['n'],
    apply: async (values, lookup) => {
      const param = lookup ? `ipaddress__${lookup}` : 'ipaddress';
      const parsed = values.map((v) => ({ v, n: parseNetwork(v) }));
      const bad = parsed.find((x) => x.n === null);
      if (bad) throw new ValidationError({ [param]: [`Select a valid choice. ${bad.v} is not one of the available choices.`] });
      const wanted = parsed.map((x) => formatNetwork(x.n!));
      const rows = await ctx.db.query(sql`SELECT id, address::text AS address FROM ${addresses} WHERE address = ANY(${wanted}::inet[])`);
      const found = new Set(rows.map((r) => formatNetwork(parseNetwork(String(r.address))!)));
      const missing = parsed.find((x) => !found.has(formatNetwork(x.n!)));
      if (missing) throw new ValidationError({ [param]: [`Select a valid choice. ${missing.v} is not one of the available choices.`] });
      const ids = rows.map((r) => Number(r.id));
      const has = sql`EXISTS (SELECT 1 FROM ${links} l WHERE l.owner_id = t.id AND l.target_id = ANY(${ids}::bigint[]))`;
      return excludedBy(lookup, has);
    },
  };
}

/** A reusable description of a service (name, protocol, ports), to create services from. */
export const serviceTemplate: ModelDef = defineModel({
  label: 'ipam.servicetemplate',
  endpoint: 'service-templates',
  table: 'service_template',
  verboseName: 'service template',
  fields: { name: f.name(100, { unique: 'Service template with this Name already exists.' }), ...common() },
  brief: ['name', 'protocol', 'ports'],
  display: serviceDisplay,
  ordering: ['name'],
  search: ['name', 'description'],
  filters: () => [portFilter],
  hooks: { validate: checkPorts },
});

/** An application listening on a device or a virtual machine (exactly one of them). */
export const service: ModelDef = defineModel({
  label: 'ipam.service',
  endpoint: 'services',
  verboseName: 'service',
  fields: {
    device: f.fk('dcim.device', 'CASCADE', { nullable: true, filterKey: 'name' }),
    virtual_machine: f.fk('virtualization.virtualmachine', 'CASCADE', { nullable: true, filterKey: 'name' }),
    name: f.name(100),
    ...serviceFields(),
  },
  brief: ['name', 'protocol', 'ports'],
  display: serviceDisplay,
  ordering: ['protocol', 'ports', 'id'],
  search: ['name', 'description'],
  filters: (ctx) => [portFilter, ipaddressFilter(ctx)],
  hooks: {
    validate: (row) => {
      // NetBox's Service.clean()
      const device = row.device_id !== null && row.device_id !== undefined;
      const machine = row.virtual_machine_id !== null && row.virtual_machine_id !== undefined;
      if (device && machine) throw new ValidationError({ __all__: ['A service cannot be associated with both a device and a virtual machine.'] });
      if (!device && !machine) throw new ValidationError({ __all__: ['A service must be associated with either a device or a virtual machine.'] });
      checkPorts(row);
    },
  },
});
