import { ValidationError } from '@inventory/core';
import { sql, raw, type FilterDef, type Sql } from '@inventory/filtering';
import { contentTypeById } from '@inventory/refs';
import {
  defineModel,
  f,
  ilike,
  keyResolver,
  nestedFor,
  projectedModels,
  projection,
  searchFilter,
  TENANT_GROUP_HOPS,
  type ModelDef,
  type Queryable,
  type Row,
  type ServiceContext,
} from '@inventory/rest';
import { attachedTo } from './tunnels';
import { L2VPN_P2P, L2VPN_TYPE } from './vpn-choices';

/** A layer-two VPN (VPLS, VXLAN, EVPN …), with the route targets it imports and exports. */
export const l2vpn: ModelDef = defineModel({
  label: 'vpn.l2vpn',
  endpoint: 'l2vpns',
  verboseName: 'L2VPN',
  schemaName: 'L2VPN',
  fields: {
    identifier: { type: 'bigint', nullable: true, min: -9007199254740991, max: Number.MAX_SAFE_INTEGER },
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    type: f.choice(L2VPN_TYPE, { required: true }),
    import_targets: f.m2m('ipam.routetarget', 'l2vpn_import_targets', { idFilter: 'import_target_id', filterKey: 'name', filterName: 'import_target' }),
    export_targets: f.m2m('ipam.routetarget', 'l2vpn_export_targets', { idFilter: 'export_target_id', filterKey: 'name', filterName: 'export_target' }),
    description: f.description(),
    comments: { ...f.comments(), filter: false },
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
  },
  brief: ['identifier', 'name', 'slug', 'type'],
  display: (row) => (row.identifier !== null && row.identifier !== undefined && Number(row.identifier) !== 0 ? `${String(row.name)} (${String(row.identifier)})` : String(row.name)),
  ordering: ['name', 'identifier'],
  // `q`: name or description, or the identifier when `q` is a number
  filters: () => [
    searchFilter((pattern, _escaped, text) => [
      ilike(sql`t.name`, pattern),
      ilike(sql`t.description`, pattern),
      ...(/^-?\d{1,15}$/.test(text.trim()) ? [sql`t.identifier = ${Number(text.trim())}::bigint`] : []),
    ]),
  ],
});

/** What an L2VPN may terminate on (NetBox's L2VPN_ASSIGNMENT_MODELS). */
export const L2VPN_ASSIGNMENT_MODELS = ['dcim.interface', 'ipam.vlan', 'virtualization.vminterface'];
const isAssignable = (label: string) => L2VPN_ASSIGNMENT_MODELS.includes(label);

const isSet = (v: unknown) => v !== null && v !== undefined && v !== '';

/** The assigned object: a VLAN of ipam's, or an interface of ipam's projections; null when there is none. */
async function assignedObject(ctx: ServiceContext, q: Queryable, label: string, id: unknown): Promise<Row | null> {
  if (label === 'ipam.vlan') {
    const [hit] = await q.query(sql`SELECT id, name, vid FROM ${raw(ctx.db.table('vlan'))} WHERE id = ${id}`);
    return hit ? { ...hit, display: `${String(hit.name)} (${String(hit.vid)})` } : null;
  }
  if (!projectedModels(ctx).has(label)) return null;
  const [hit] = await q.query(sql`SELECT data, nested FROM ${projection(ctx, label)} WHERE id = ${id} AND NOT deleted`);
  return hit ? { ...(hit.data as Row), display: (hit.nested as Row | null)?.display ?? (hit.data as Row).name } : null;
}

/** One object (a VLAN, an interface, a VM interface) attached to an L2VPN. */
export const l2vpnTermination: ModelDef = defineModel({
  label: 'vpn.l2vpntermination',
  endpoint: 'l2vpn-terminations',
  table: 'l2vpn_termination',
  verboseName: 'L2VPN termination',
  schemaName: 'L2VPNTermination',
  fields: {
    l2vpn: f.fk('vpn.l2vpn', 'CASCADE', { required: true, label: 'L2VPN' }),
    assigned_object_type: f.contentType({ required: true, allowed: isAssignable }),
    assigned_object_id: { type: 'bigint', required: true, min: 0, max: Number.MAX_SAFE_INTEGER, filter: false },
    assigned_object: f.generic('assigned_object_type', 'assigned_object_id', { allowed: isAssignable }),
  },
  brief: ['l2vpn'],
  // `<assigned object> <> <L2VPN>`; the brief form, which shows no assigned object, has it completed (decorate)
  display: (row, rep) => {
    const assigned = (rep.assigned_object as { display?: string } | null)?.display ?? `${String(row.assigned_object_type)} ${String(row.assigned_object_id)}`;
    const vpn = (rep.l2vpn as { display?: string } | null)?.display ?? String(row.l2vpn_id);
    return `${assigned} <> ${vpn}`;
  },
  ordering: ['l2vpn', 'id'],
  unique: [
    {
      fields: ['assigned_object_type', 'assigned_object_id'],
      message: 'L2VPN termination with this Assigned object type and Assigned object id already exists.',
    },
  ],
  reads: [
    { label: 'dcim.interface', keys: ['device'] },
    { label: 'virtualization.vminterface', keys: ['virtual_machine'] },
    { label: 'dcim.device', keys: ['site'] },
    { label: 'virtualization.virtualmachine', keys: ['site'] },
    { label: 'dcim.site', keys: ['region'] },
  ],
  filters: (ctx) => terminationFilters(ctx),
  hooks: {
    decorate: async (rows, out, c) => {
      if (!c.brief || !(c.wants?.('display') ?? true) || !rows.length) return;
      // the brief form: its display from the assigned objects' (one lookup per type for the page)
      const byType = new Map<string, number[]>();
      for (const r of rows) byType.set(String(r.assigned_object_type), [...(byType.get(String(r.assigned_object_type)) ?? []), Number(r.assigned_object_id)]);
      const found = new Map<string, Map<number, Row>>();
      for (const [label, ids] of byType) found.set(label, await nestedFor(c.service, label, ids, c.base, c.q).catch(() => new Map<number, Row>()));
      rows.forEach((row, i) => {
        const assigned = found.get(String(row.assigned_object_type))?.get(Number(row.assigned_object_id));
        if (assigned && typeof out[i].display === 'string') out[i].display = l2vpnTermination.display(row, { ...out[i], assigned_object: assigned });
      });
    },
    validate: async (row, existing, wctx) => {
      const ctx = wctx.service;
      const type = row.assigned_object_type;
      const id = row.assigned_object_id;
      if (isSet(type) && isSet(id)) {
        const target = await assignedObject(ctx, wctx.tx, String(type), id);
        if (!target) throw new ValidationError({ assigned_object_id: [`Related object not found using the provided numeric ID: ${String(id)}`] });
        // L2VPNTermination.clean()
        const [taken] = await wctx.tx.query(sql`SELECT 1 FROM ${raw(ctx.db.table('l2vpn_termination'))}
           WHERE assigned_object_type = ${String(type)} AND assigned_object_id = ${Number(id)} AND id <> ${existing ? Number(existing.id) : 0} LIMIT 1`);
        if (taken) throw new ValidationError({ __all__: [`L2VPN Termination already assigned (${String(target.display)})`] });
      }
      if (!isSet(row.l2vpn_id)) return;
      const [vpn] = await wctx.tx.query(sql`SELECT type FROM ${raw(ctx.db.table('l2vpn'))} WHERE id = ${Number(row.l2vpn_id)}`);
      if (!vpn || !L2VPN_P2P.includes(String(vpn.type))) return;
      const [counted] = await wctx.tx.query(sql`SELECT count(*) AS n FROM ${raw(ctx.db.table('l2vpn_termination'))}
         WHERE l2vpn_id = ${Number(row.l2vpn_id)} AND id <> ${existing ? Number(existing.id) : 0}`);
      const n = Number(counted?.n ?? 0);
      if (n >= 2) {
        const label = L2VPN_TYPE.find(([v]) => v === vpn.type)?.[1] ?? String(vpn.type);
        throw new ValidationError({ __all__: [`${label} L2VPNs cannot have more than two terminations; found ${n} already defined.`] });
      }
    },
  },
});

/** NetBox's L2VPNTerminationFilterSet beyond the generated filters. */
function terminationFilters(ctx: ServiceContext): FilterDef[] {
  const p = (label: string) => projection(ctx, label);
  const vlans = raw(ctx.db.table('vlan'));
  const has = (label: string) => projectedModels(ctx).has(label);
  /** The interface's device (or the VM interface's machine), by id; NULL for other terminations. */
  const parentOf = (label: string, key: string): Sql =>
    has(label) ? sql`(CASE WHEN t.assigned_object_type = ${label} THEN (SELECT (i.data->>${key})::bigint FROM ${p(label)} i WHERE i.id = t.assigned_object_id) END)` : sql`NULL::bigint`;
  const siteOfParent = (parentLabel: string, parent: Sql): Sql =>
    has(parentLabel) ? sql`(SELECT (x.data->>'site')::bigint FROM ${p(parentLabel)} x WHERE x.id = ${parent})` : sql`NULL::bigint`;
  /** The site of the VLAN, or of the interface's device, or of the VM interface's machine. */
  const site = sql`COALESCE(
    (CASE WHEN t.assigned_object_type = 'ipam.vlan' THEN (SELECT v.site_id FROM ${vlans} v WHERE v.id = t.assigned_object_id) END),
    ${siteOfParent('dcim.device', parentOf('dcim.interface', 'device'))},
    ${siteOfParent('virtualization.virtualmachine', parentOf('virtualization.vminterface', 'virtual_machine'))})`;
  const region = has('dcim.site') ? sql`(SELECT (s.data->>'region')::bigint FROM ${p('dcim.site')} s WHERE s.id = ${site})` : sql`NULL::bigint`;
  /** `site`/`site_id`, `region`/`region_id`: method filters of NetBox's, values not checked (an unknown one matches nothing). */
  const placed = (name: string, label: string, key: 'id' | 'slug', expr: Sql): FilterDef => ({
    kind: 'method',
    name,
    ...(key === 'id' ? { valueType: 'integer' as const } : {}),
    apply: async (values) => {
      const given = values.filter((v) => v !== '');
      if (!given.length) return undefined;
      const found = key === 'id' ? new Map(given.map((v) => [v, [Number(v)]])) : await keyResolver(ctx, label, key, false)(given);
      const ids = given.flatMap((v) => found.get(v) ?? []);
      return sql`${expr} = ANY(${ids}::bigint[])`;
    },
  });
  const parent = (name: string, ifaceLabel: string, key: string, ownerLabel: string, by: 'id' | 'name'): FilterDef => ({
    kind: 'relation',
    name,
    expr: parentOf(ifaceLabel, key),
    keyType: by === 'id' ? 'integer' : 'string',
    resolve: keyResolver(ctx, ownerLabel, by, false),
  });
  return [
    searchFilter((pattern) => [sql`EXISTS (SELECT 1 FROM ${raw(ctx.db.table('l2vpn'))} l WHERE l.id = t.l2vpn_id AND ${ilike(sql`l.name`, pattern)})`]),
    placed('region', 'dcim.region', 'slug', region),
    placed('region_id', 'dcim.region', 'id', region),
    placed('site', 'dcim.site', 'slug', site),
    placed('site_id', 'dcim.site', 'id', site),
    parent('device', 'dcim.interface', 'device', 'dcim.device', 'name'),
    parent('device_id', 'dcim.interface', 'device', 'dcim.device', 'id'),
    parent('virtual_machine', 'virtualization.vminterface', 'virtual_machine', 'virtualization.virtualmachine', 'name'),
    parent('virtual_machine_id', 'virtualization.vminterface', 'virtual_machine', 'virtualization.virtualmachine', 'id'),
    attachedTo(ctx, 'interface', 'assigned_object_type', 'assigned_object_id', 'dcim.interface', 'name'),
    attachedTo(ctx, 'interface_id', 'assigned_object_type', 'assigned_object_id', 'dcim.interface', 'id'),
    attachedTo(ctx, 'vminterface', 'assigned_object_type', 'assigned_object_id', 'virtualization.vminterface', 'name'),
    attachedTo(ctx, 'vminterface_id', 'assigned_object_type', 'assigned_object_id', 'virtualization.vminterface', 'id'),
    attachedTo(ctx, 'vlan', 'assigned_object_type', 'assigned_object_id', 'ipam.vlan', 'name'),
    attachedTo(ctx, 'vlan_id', 'assigned_object_type', 'assigned_object_id', 'ipam.vlan', 'id'),
    {
      kind: 'integer',
      name: 'vlan_vid',
      expr: sql`(CASE WHEN t.assigned_object_type = 'ipam.vlan' THEN (SELECT v.vid FROM ${vlans} v WHERE v.id = t.assigned_object_id) END)`,
    },
    {
      // ModelChoiceFilter over content types: one id (the last given)
      kind: 'method',
      name: 'assigned_object_type_id',
      lookups: ['n'],
      valueType: 'integer',
      apply: (values, lookup) => {
        const v = values[values.length - 1];
        if (v === undefined || v === '') return undefined;
        const ct = contentTypeById(Number(v));
        if (!ct) {
          throw new ValidationError({ [lookup ? `assigned_object_type_id__${lookup}` : 'assigned_object_type_id']: ['Select a valid choice. That choice is not one of the available choices.'] });
        }
        return lookup === 'n' ? sql`t.assigned_object_type <> ${ct.label}` : sql`t.assigned_object_type = ${ct.label}`;
      },
    },
  ];
}

/** `l2vpn_id` / `l2vpn` (by identifier) on VLANs and interfaces: the objects terminated on one of those L2VPNs. */
export function terminatedOn(ctx: ServiceContext, name: string, label: string, key: 'id' | 'identifier'): FilterDef {
  const terms = raw(ctx.db.table('l2vpn_termination'));
  return {
    kind: 'relation',
    name,
    expr: sql`(SELECT lt.l2vpn_id FROM ${terms} lt WHERE lt.assigned_object_type = ${label} AND lt.assigned_object_id = t.id)`,
    keyType: key === 'id' ? 'integer' : 'string',
    resolve: key === 'id' ? keyResolver(ctx, 'vpn.l2vpn', 'id', false) : identifiers(ctx),
  };
}

/** L2VPNs by identifier (a number: compared as text, so that any value is looked up and an unknown one is a 400). */
function identifiers(ctx: ServiceContext) {
  return async (values: string[]): Promise<Map<string, number[]>> => {
    const rows = await ctx.db.query(sql`SELECT id, identifier::text AS k FROM ${raw(ctx.db.table('l2vpn'))} WHERE identifier::text = ANY(${values}::text[])`);
    const out = new Map<string, number[]>();
    for (const r of rows) out.set(String(r.k), [...(out.get(String(r.k)) ?? []), Number(r.id)]);
    return out;
  };
}
