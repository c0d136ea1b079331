import { ValidationError } from '@inventory/core';
import { sql, raw, type FilterDef } from '@inventory/filtering';
import {
  defineModel,
  f,
  ilike,
  keyResolver,
  projectedModels,
  projection,
  searchFilter,
  TENANT_GROUP_HOPS,
  type ModelDef,
  type Queryable,
  type Row,
  type ServiceContext,
} from '@inventory/rest';
import { TUNNEL_ENCAPSULATION, TUNNEL_STATUS, TUNNEL_TERMINATION_ROLE } from './vpn-choices';

/** An administrative grouping of tunnels (a mesh's peer-to-peer tunnels, say). */
export const tunnelGroup: ModelDef = defineModel({
  label: 'vpn.tunnelgroup',
  endpoint: 'tunnel-groups',
  table: 'tunnel_group',
  verboseName: 'tunnel group',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    description: f.description(),
  },
  brief: ['name', 'slug', 'tunnel_count'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'slug', 'description'],
  counts: { tunnel_count: { model: 'vpn.tunnel', field: 'group' } },
});

/** A tunnel (GRE, IP-in-IP, IPSec), optionally protected by an IPSec profile; its ends are its terminations. */
export const tunnel: ModelDef = defineModel({
  label: 'vpn.tunnel',
  endpoint: 'tunnels',
  verboseName: 'tunnel',
  fields: {
    name: f.name(100, { unique: true }),
    status: f.choice(TUNNEL_STATUS, { default: 'active' }),
    group: f.fk('vpn.tunnelgroup', 'PROTECT', { nullable: true }),
    encapsulation: f.choice(TUNNEL_ENCAPSULATION, { required: true }),
    ipsec_profile: f.fk('vpn.ipsecprofile', 'PROTECT', { nullable: true, filterKey: 'name', label: 'IPSec profile' }),
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    tunnel_id: { type: 'bigint', nullable: true, min: 0, max: Number.MAX_SAFE_INTEGER, label: 'tunnel ID' },
    description: f.description(),
    comments: { ...f.comments(), filter: false },
  },
  brief: ['name'],
  display: (row) => String(row.name),
  ordering: ['name'],
  filters: () => [searchFilter((pattern) => [ilike(sql`t.name`, pattern), ilike(sql`t.description`, pattern), ilike(sql`t.comments`, pattern)])],
});

/** What a tunnel may terminate on: an interface of a device or of a virtual machine. */
export const TUNNEL_TERMINATION_TYPES = ['dcim.interface', 'virtualization.vminterface'];
const isTerminationType = (label: string) => TUNNEL_TERMINATION_TYPES.includes(label);

/**
 * A filter on a generic relation's target: `<name>` matches the objects
 * attached to one of the given `label` objects (by id or by `key`), as a
 * relation filter (`null`, `__n`, unknown values a 400).
 */
export function attachedTo(ctx: ServiceContext, name: string, typeColumn: string, idColumn: string, label: string, key: 'id' | 'name'): FilterDef {
  return {
    kind: 'relation',
    name,
    expr: sql`(CASE WHEN t.${raw(`"${typeColumn}"`)} = ${label} THEN t.${raw(`"${idColumn}"`)} END)`,
    keyType: key === 'id' ? 'integer' : 'string',
    resolve: keyResolver(ctx, label, key, false),
  };
}

/** The termination object (an interface of ipam's projections), or null. */
async function terminationObject(ctx: ServiceContext, q: Queryable, label: string, id: unknown): Promise<Row | null> {
  if (!projectedModels(ctx).has(label)) return null;
  const [hit] = await q.query(sql`SELECT data FROM ${projection(ctx, label)} WHERE id = ${id} AND NOT deleted`);
  return hit ? (hit.data as Row) : null;
}

const isSet = (v: unknown) => v !== null && v !== undefined && v !== '';

/** One end of a tunnel: an interface (of a device or a VM), with its role and the outside IP it uses. */
export const tunnelTermination: ModelDef = defineModel({
  label: 'vpn.tunneltermination',
  endpoint: 'tunnel-terminations',
  table: 'tunnel_termination',
  verboseName: 'tunnel termination',
  fields: {
    tunnel: f.fk('vpn.tunnel', 'CASCADE', { required: true, filterKey: 'name' }),
    role: f.choice(TUNNEL_TERMINATION_ROLE, { default: 'peer' }),
    termination_type: f.contentType({ required: true, allowed: isTerminationType }),
    termination_id: { type: 'bigint', nullable: true, min: 0, max: Number.MAX_SAFE_INTEGER, filter: false },
    termination: f.generic('termination_type', 'termination_id', { allowed: isTerminationType }),
    outside_ip: f.fk('ipam.ipaddress', 'PROTECT', { nullable: true, filterKey: null, label: 'Outside IP' }),
  },
  brief: [],
  // `<tunnel>: Termination <id>`; the brief form, which shows no tunnel, has it completed (decorate)
  display: (row, rep) => `${(rep.tunnel as { display?: string } | null)?.display ?? String(row.tunnel_id)}: Termination ${String(row.id)}`,
  ordering: ['tunnel', 'role', 'id'],
  // tagged, with custom fields, but not an event-rules model (NetBox's TunnelTermination)
  unique: [{ fields: ['termination_type', 'termination_id'], errorField: 'termination', message: 'An object may be terminated to only one tunnel at a time.' }],
  filters: (ctx) => [
    // NetBox's TunnelTerminationFilterSet has `q` but no search of its own (NetBoxModelFilterSet.search): it filters nothing
    { kind: 'method', name: 'q', apply: () => undefined },
    attachedTo(ctx, 'interface', 'termination_type', 'termination_id', 'dcim.interface', 'name'),
    attachedTo(ctx, 'interface_id', 'termination_type', 'termination_id', 'dcim.interface', 'id'),
    attachedTo(ctx, 'vminterface', 'termination_type', 'termination_id', 'virtualization.vminterface', 'name'),
    attachedTo(ctx, 'vminterface_id', 'termination_type', 'termination_id', 'virtualization.vminterface', 'id'),
  ],
  hooks: {
    decorate: async (rows, out, c) => {
      if (!c.brief || !(c.wants?.('display') ?? true) || !rows.length) return;
      const names = await c.q.query(sql`SELECT id, name FROM ${raw(c.service.db.table('tunnel'))} WHERE id = ANY(${rows.map((r) => Number(r.tunnel_id))}::bigint[])`);
      const byId = new Map(names.map((n) => [Number(n.id), String(n.name)]));
      rows.forEach((row, i) => {
        const name = byId.get(Number(row.tunnel_id));
        if (name !== undefined && typeof out[i].display === 'string') out[i].display = `${name}: Termination ${String(row.id)}`;
      });
    },
    validate: async (row, existing, wctx) => {
      const ctx = wctx.service;
      const type = row.termination_type;
      const id = row.termination_id;
      if (!isSet(type) || !isSet(id)) return;
      const target = await terminationObject(ctx, wctx.tx, String(type), id);
      if (!target) throw new ValidationError({ termination_id: [`Related object not found using the provided numeric ID: ${String(id)}`] });
      // TunnelTermination.clean(): the object is not already attached to a tunnel
      const [other] = await wctx.tx.query(sql`
        SELECT tn.name FROM ${raw(ctx.db.table('tunnel_termination'))} tt JOIN ${raw(ctx.db.table('tunnel'))} tn ON tn.id = tt.tunnel_id
         WHERE tt.termination_type = ${String(type)} AND tt.termination_id = ${Number(id)} AND tt.id <> ${existing ? Number(existing.id) : 0}
         LIMIT 1`);
      if (other) throw new ValidationError({ termination: [`${String(target.name)} is already attached to a tunnel (${String(other.name)}).`] });
    },
  },
});
