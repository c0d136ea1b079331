import { ValidationError } from '@inventory/core';
import { sql, raw, type Sql } from '@inventory/filtering';
import {
  formatAddress,
  hashKey,
  isNetwork,
  memo,
  nestedFor,
  networkOf,
  networkText,
  parseNetwork,
  projectedModels,
  projection,
  type Queryable,
  type Row,
  type ServiceContext,
  type Touched,
  type WriteContext,
} from '@inventory/rest';
import { refreshBlockUsage, type UsageChange } from '../allocation';
import { ASSIGNMENT_PARENTS, NONUNIQUE_ROLES } from './addressing-choices';
import { addressingSettings } from './settings';

const isSet = (v: unknown) => v !== null && v !== undefined && v !== '';
const table = (ctx: ServiceContext, name: string): Sql => raw(ctx.db.table(name));
const fail = (field: string, message: string): never => {
  throw new ValidationError({ [field]: [message] });
};

/**
 * NetBox takes the advisory lock 100200 around IP address writes (the
 * allocators take it too); prefixes take their own. Held to the end of the
 * write's transaction, so a duplicate check and the insert it allows are
 * one step for concurrent requests.
 */
export const ADDRESS_LOCK = 100200;
export const PREFIX_LOCK = hashKey('ipam.prefix');
/** Takes an advisory lock once per write (a bulk write's rows would each ask again). */
const lock = (wctx: WriteContext, key: number) => memo(wctx, `advisory-lock:${key}`, () => wctx.tx.query(sql`SELECT pg_advisory_xact_lock(${key})`));

/** Takes the address lock (held to the end of the write's transaction). */
export async function lockAddresses(wctx: WriteContext): Promise<void> {
  await lock(wctx, ADDRESS_LOCK);
}

/** `family`: `{value, label}` in the full form, the bare integer in brief and nested forms. */
export function decorateFamily(rows: Row[], out: Row[], brief: boolean, column: string): void {
  out.forEach((rep, i) => {
    if (!('family' in rep)) return;
    const value = rows[i][column];
    if (value === null || value === undefined) return;
    const version = String(value).includes(':') ? 6 : 4;
    rep.family = brief ? version : { value: version, label: `IPv${version}` };
  });
}

/** A nested form taken from the full one: `family` as its bare value. */
export function nestedFamily(nested: Row): Row {
  const family = nested.family as { value?: unknown } | null | undefined;
  return family && typeof family === 'object' ? { ...nested, family: family.value } : nested;
}

/** The table an object is in, for messages: `VRF <display>` or `global table`. */
async function tableName(wctx: WriteContext, vrfId: unknown): Promise<string> {
  if (!isSet(vrfId)) return 'global table';
  const [v] = await wctx.tx.query(sql`SELECT name, rd FROM ${table(wctx.service, 'vrf')} WHERE id = ${vrfId}`);
  return `VRF ${v?.rd ? `${String(v.name)} (${String(v.rd)})` : String(v?.name ?? vrfId)}`;
}

/** Whether duplicates are refused in the object's table: the global table by ENFORCE_GLOBAL_UNIQUE, a VRF by its enforce_unique. */
async function enforcesUnique(wctx: WriteContext, vrfId: unknown): Promise<boolean> {
  if (!isSet(vrfId)) return addressingSettings(wctx.service).enforceGlobalUnique;
  const [v] = await memo(wctx, `vrf-enforce-unique:${String(vrfId)}`, () => wctx.tx.query(sql`SELECT enforce_unique FROM ${table(wctx.service, 'vrf')} WHERE id = ${vrfId}`));
  return v?.enforce_unique !== false;
}

/** Aggregate.clean(): aggregates never overlap. */
export async function checkAggregate(row: Row, existing: Row | null, wctx: WriteContext): Promise<void> {
  if (!isSet(row.prefix)) return;
  const self = existing ? Number(existing.id) : 0;
  const t = table(wctx.service, 'aggregate');
  const [covering] = await wctx.tx.query(sql`SELECT prefix FROM ${t} WHERE prefix >>= ${row.prefix}::cidr AND id <> ${self} ORDER BY prefix LIMIT 1`);
  if (covering) {
    fail('prefix', `Aggregates cannot overlap. ${String(row.prefix)} is already covered by an existing aggregate (${String(networkText(covering.prefix))}).`);
  }
  const [covered] = await wctx.tx.query(sql`SELECT prefix FROM ${t} WHERE prefix << ${row.prefix}::cidr AND id <> ${self} ORDER BY prefix LIMIT 1`);
  if (covered) fail('prefix', `Prefixes cannot overlap aggregates. ${String(row.prefix)} covers an existing aggregate (${String(networkText(covered.prefix))}).`);
}

/** Prefix.clean(): no duplicate in a table that enforces uniqueness. */
export async function checkPrefix(row: Row, existing: Row | null, wctx: WriteContext): Promise<void> {
  if (!isSet(row.prefix) || !(await enforcesUnique(wctx, row.vrf_id))) return;
  await lock(wctx, PREFIX_LOCK);
  // created prefixes are checked together once stored (checkPrefixesAfterWrite): one statement for a bulk create
  if (!existing) return;
  const [dup] = await wctx.tx.query(sql`
    SELECT prefix FROM ${table(wctx.service, 'prefix')}
     WHERE vrf_id IS NOT DISTINCT FROM ${row.vrf_id ?? null}::bigint AND prefix = ${row.prefix}::cidr AND id <> ${existing ? Number(existing.id) : 0}
     ORDER BY id LIMIT 1`);
  if (dup) fail('prefix', `Duplicate prefix found in ${await tableName(wctx, row.vrf_id)}: ${String(networkText(dup.prefix))}`);
}

/** Created prefixes, and updated ones written together, against every stored prefix: once stored, under the same lock. */
export async function checkPrefixesAfterWrite(touched: Touched, wctx: WriteContext): Promise<void> {
  const ids = writtenIds(touched);
  if (!touched.created?.length && ids.length < 2) return;
  const t = table(wctx.service, 'prefix');
  const [dup] = await wctx.tx.query(sql`
    SELECT p.prefix, p.vrf_id FROM ${t} p JOIN ${t} o ON o.id <> p.id AND o.vrf_id IS NOT DISTINCT FROM p.vrf_id AND o.prefix = p.prefix
      LEFT JOIN ${table(wctx.service, 'vrf')} v ON v.id = p.vrf_id
     WHERE p.id = ANY(${ids}::bigint[]) AND (CASE WHEN p.vrf_id IS NULL THEN ${addressingSettings(wctx.service).enforceGlobalUnique}::boolean ELSE v.enforce_unique END)
     LIMIT 1`);
  if (dup) fail('prefix', `Duplicate prefix found in ${await tableName(wctx, dup.vrf_id)}: ${String(networkText(dup.prefix))}`);
}

const writtenIds = (touched: Touched) => [...(touched.created ?? []), ...(touched.updated ?? []).map((r) => Number(r.id))];

/**
 * Prefix hierarchy, set-based: after prefixes are created, moved (prefix or
 * VRF) or deleted, every prefix of the affected VRFs that contains or lies
 * within an old or new location gets `_depth` (distinct strictly containing
 * prefix values in its VRF) and `children` (strictly contained rows)
 * recomputed, in one statement. Like NetBox's bulk update, no change of
 * their own is recorded (no event), but their version is raised: their ETag
 * changes with what they show.
 */
export async function recalculateHierarchy(touched: Touched, wctx: WriteContext): Promise<void> {
  const t = table(wctx.service, 'prefix');
  const places: { vrf: unknown; prefix: unknown }[] = [];
  for (const r of [...(touched.updated ?? []), ...(touched.deleted ?? [])]) places.push({ vrf: r.vrf_id ?? null, prefix: networkText(r.prefix) });
  const live = writtenIds(touched);
  if (live.length) {
    const rows = await wctx.tx.query(sql`SELECT vrf_id, prefix FROM ${t} WHERE id = ANY(${live}::bigint[])`);
    for (const r of rows) places.push({ vrf: r.vrf_id ?? null, prefix: networkText(r.prefix) });
  }
  if (!places.length) return;
  const place = sql`place AS (
      SELECT * FROM unnest(${places.map((p) => (p.vrf === null ? null : Number(p.vrf)))}::bigint[], ${places.map((p) => String(p.prefix))}::cidr[]) AS x(vrf_id, prefix)
    ), affected AS (
      SELECT DISTINCT p.id FROM ${t} p JOIN place x ON p.vrf_id IS NOT DISTINCT FROM x.vrf_id AND (p.prefix >>= x.prefix OR p.prefix << x.prefix)
    )`;
  await wctx.tx.query(hierarchyStatement(t, place));
}

/**
 * The hierarchy statement itself: `_depth` and `children` recomputed for the
 * prefixes of the CTE `affected` (its `id`s), which `ctes` defines (with any
 * CTE it needs), in the prefix table `t`; rows whose values change get their
 * version raised. Exported for bench/ipam.js, which loads prefixes straight
 * into the table and computes their hierarchy with this same statement.
 */
export function hierarchyStatement(t: Sql, ctes: Sql): Sql {
  return sql`
    WITH ${ctes}, calc AS (
      SELECT p.id,
             (SELECT count(DISTINCT q.prefix) FROM ${t} q WHERE q.vrf_id IS NOT DISTINCT FROM p.vrf_id AND q.prefix >> p.prefix) AS depth,
             (SELECT count(*) FROM ${t} q WHERE q.vrf_id IS NOT DISTINCT FROM p.vrf_id AND q.prefix << p.prefix) AS children
        FROM ${t} p WHERE p.id IN (SELECT id FROM affected)
    )
    UPDATE ${t} p SET _depth = c.depth, children = c.children, _version = p._version + 1 FROM calc c
     WHERE p.id = c.id AND (p._depth IS DISTINCT FROM c.depth::int OR p.children IS DISTINCT FROM c.children::int)`;
}

/** The number of addresses from start to end (host parts), or null when not both are known. */
export function rangeSize(row: Row): number | null {
  const a = parseNetwork(networkText(row.start_address));
  const b = parseNetwork(networkText(row.end_address));
  if (!a || !b || a.version !== b.version) return null;
  const size = b.value - a.value + 1n;
  return size > 0n && size <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(size) : null;
}

/** The largest range the reference stores (a 32-bit signed size column). */
const MAX_RANGE_SIZE = 2 ** 32 - 1;

/** IPRange.clean(). */
export async function checkRange(row: Row, existing: Row | null, wctx: WriteContext): Promise<void> {
  const a = parseNetwork(networkText(row.start_address));
  const b = parseNetwork(networkText(row.end_address));
  if (!a || !b) return;
  if (a.version !== b.version) fail('end_address', 'Starting and ending IP address versions must match');
  if (a.length !== b.length) fail('end_address', 'Starting and ending IP address masks must match');
  const [order] = await wctx.tx.query(sql`SELECT ${row.end_address}::inet > ${row.start_address}::inet AS ok`);
  if (!order.ok) fail('end_address', `Ending address must be greater than the starting address (${String(networkText(row.start_address))})`);
  const [overlap] = await wctx.tx.query(sql`
    SELECT start_address, end_address FROM ${table(wctx.service, 'ip_range')}
     WHERE id <> ${existing ? Number(existing.id) : 0} AND vrf_id IS NOT DISTINCT FROM ${row.vrf_id ?? null}::bigint
       AND ((start_address >= ${row.start_address}::inet AND start_address <= ${row.end_address}::inet)
         OR (end_address >= ${row.start_address}::inet AND end_address <= ${row.end_address}::inet)
         OR (start_address <= ${row.start_address}::inet AND end_address >= ${row.end_address}::inet))
     ORDER BY start_address LIMIT 1`);
  if (overlap) {
    const vrf = isSet(row.vrf_id) ? (await tableName(wctx, row.vrf_id)).replace(/^VRF /, '') : 'None';
    fail('__all__', `Defined addresses overlap with range ${rangeName(overlap)} in VRF ${vrf}`);
  }
  if (b.value - a.value + 1n > BigInt(MAX_RANGE_SIZE)) fail('__all__', `Defined range exceeds maximum supported size (${MAX_RANGE_SIZE})`);
}

/** IPAddress.save(): the DNS name is stored in lower case. */
export function normalizeAddress(columns: Row): void {
  if (typeof columns.dns_name === 'string') columns.dns_name = columns.dns_name.toLowerCase();
}

/** The assigned object, if it exists: from the table of a model of ipam's, or ipam's projection of another service's. */
async function assignedObject(ctx: ServiceContext, q: Queryable, type: string, id: unknown): Promise<Row | null> {
  const local = ctx.models.get(type);
  if (local) {
    const [hit] = await q.query(sql`SELECT * FROM ${table(ctx, local.table)} WHERE id = ${id}`);
    return hit ?? null;
  }
  if (!projectedModels(ctx).has(type)) return null;
  const [hit] = await q.query(sql`SELECT data FROM ${projection(ctx, type)} WHERE id = ${id} AND NOT deleted`);
  return hit ? (hit.data as Row) : null;
}

/** The device or VM of an assigned interface, with its primary addresses (from ipam's projections); null without one. */
async function parentOf(ctx: ServiceContext, q: Queryable, type: unknown, id: unknown): Promise<{ label: string; id: number; primary: number[] } | null> {
  if (!isSet(type) || !isSet(id)) return null;
  const parent = ASSIGNMENT_PARENTS[String(type)];
  if (!parent) return null;
  const obj = await assignedObject(ctx, q, String(type), id);
  const parentId = obj?.[parent.field];
  if (!isSet(parentId) || !projectedModels(ctx).has(parent.label)) return null;
  const [p] = await q.query(sql`SELECT data FROM ${projection(ctx, parent.label)} WHERE id = ${parentId} AND NOT deleted`);
  const data = (p?.data ?? {}) as Row;
  return { label: parent.label, id: Number(parentId), primary: [data.primary_ip4, data.primary_ip6].filter(isSet).map(Number) };
}

/** IPAddress.clean() and the assignment's generic relation. */
export async function checkAddress(row: Row, existing: Row | null, wctx: WriteContext): Promise<void> {
  const ctx = wctx.service;
  // every address write serialises with the others and with the allocators (NetBox's lock 100200)
  await lockAddresses(wctx);
  const type = row.assigned_object_type;
  const id = row.assigned_object_id;
  if (isSet(id) && !isSet(type)) fail('assigned_object_type', 'This field is required when an assigned object id is given.');
  if (isSet(type) && !isSet(id)) fail('assigned_object_id', 'This field is required when an assigned object type is given.');
  const parsed = parseNetwork(networkText(row.address));
  if (isSet(type) && isSet(id)) {
    // once per object and write: a bulk create's addresses often share an interface
    const assigned = await memo(wctx, `assigned-object:${String(type)}:${String(id)}`, () => assignedObject(ctx, wctx.tx, String(type), id));
    if (!assigned) fail('assigned_object_id', `Related object not found using the provided numeric ID: ${String(id)}`);
    // an interface's address is not its network's id, nor (IPv4) its broadcast address, below /31 (/127)
    if (parsed) {
      const host = formatAddress(parsed.version, parsed.value);
      const net = networkOf(parsed);
      const last = parsed.version === 4 ? 31 : 127;
      if (parsed.length < last && isNetwork(parsed)) fail('__all__', `${host} is a network ID, which may not be assigned to an interface.`);
      const broadcast = net.value | ((1n << BigInt(32 - parsed.length)) - 1n);
      if (parsed.version === 4 && parsed.length < 31 && parsed.value === broadcast) fail('__all__', `${host} is a broadcast address, which may not be assigned to an interface.`);
    }
  }
  // the primary IP of a device or VM stays on it: no reassignment to another parent, nor unassignment
  if (existing && isSet(existing.assigned_object_type) && isSet(existing.assigned_object_id)) {
    const before = await parentOf(ctx, wctx.tx, existing.assigned_object_type, existing.assigned_object_id);
    if (before && before.primary.includes(Number(existing.id))) {
      const after = await parentOf(ctx, wctx.tx, type, id);
      if (!after || after.label !== before.label || after.id !== before.id) {
        fail('__all__', 'Cannot reassign IP address while it is designated as the primary IP for the parent object');
      }
    }
  }
  if (row.status === 'slaac' && parsed && parsed.version !== 6) fail('status', 'Only IPv6 addresses can be assigned SLAAC status');
  // created addresses are checked together once stored (checkAddressesAfterWrite): one statement for a bulk create
  if (!existing || !isSet(row.address) || !(await enforcesUnique(wctx, row.vrf_id))) return;
  // the host as an inet (not HOST()'s text): the same test, answered by the host btree (decision 019) instead of a
  // scan of every address, which a bulk create repeats per item (bench/ipam.js: 1,000 scans of 1,000,000 rows)
  const dups = await wctx.tx.query(sql`
    SELECT address, role FROM ${table(ctx, 'ip_address')}
     WHERE vrf_id IS NOT DISTINCT FROM ${row.vrf_id ?? null}::bigint AND CAST(HOST(address) AS inet) = CAST(HOST(${row.address}::inet) AS inet) AND id <> ${existing ? Number(existing.id) : 0}
     ORDER BY id`);
  const exempt = (role: unknown) => NONUNIQUE_ROLES.includes(String(role ?? ''));
  if (dups.length && !(exempt(row.role) && dups.every((d) => exempt(d.role)))) {
    fail('address', `Duplicate IP address found in ${await tableName(wctx, row.vrf_id)}: ${String(networkText(dups[0].address))}`);
  }
}

/** Created addresses, and updated ones written together, against every stored address: once stored, under the same lock. */
export async function checkAddressesAfterWrite(touched: Touched, wctx: WriteContext): Promise<void> {
  const ids = writtenIds(touched);
  if (!touched.created?.length && ids.length < 2) return;
  const t = table(wctx.service, 'ip_address');
  const [dup] = await wctx.tx.query(sql`
    SELECT o.address, p.vrf_id FROM ${t} p JOIN ${t} o ON o.id <> p.id AND o.vrf_id IS NOT DISTINCT FROM p.vrf_id AND CAST(HOST(o.address) AS inet) = CAST(HOST(p.address) AS inet)
      LEFT JOIN ${table(wctx.service, 'vrf')} v ON v.id = p.vrf_id
     WHERE p.id = ANY(${ids}::bigint[]) AND (CASE WHEN p.vrf_id IS NULL THEN ${addressingSettings(wctx.service).enforceGlobalUnique}::boolean ELSE v.enforce_unique END)
       AND NOT (p.role = ANY(${NONUNIQUE_ROLES}::text[]) AND o.role = ANY(${NONUNIQUE_ROLES}::text[]))
     ORDER BY o.id LIMIT 1`);
  // named as NetBox names it: the address already stored (the earliest, when several)
  if (dup) fail('address', `Duplicate IP address found in ${await tableName(wctx, dup.vrf_id)}: ${String(networkText(dup.address))}`);
}

/** The block-usage summary's table (src/allocation/usage.ts) and the addresses it counts. */
export const usageTables = (ctx: ServiceContext) => ({ usage: `${ctx.db.schema}.ip_block_usage`, addresses: `${ctx.db.schema}.ip_address` });

async function refreshUsage(wctx: WriteContext, change: UsageChange): Promise<void> {
  const statement = refreshBlockUsage(usageTables(wctx.service), change);
  if (statement) await wctx.tx.query(statement);
}

/**
 * After addresses are created or updated (also in bulk, also by an allocation): the blocks of
 * their new places and of the old places of updated ones are counted again, in one statement.
 */
export async function refreshUsageAfterWrite(touched: Touched, wctx: WriteContext): Promise<void> {
  const before = (touched.updated ?? []).map((r) => ({ vrf: isSet(r.vrf_id) ? Number(r.vrf_id) : null, address: String(networkText(r.address)) }));
  await refreshUsage(wctx, { ids: writtenIds(touched), before });
}

/**
 * Before addresses are deleted — by a request, in bulk, or by a cascade (an interface deleted in
 * dcim, a VM's interfaces), every delete runs this hook: their blocks are counted again without them.
 */
export async function refreshUsageBeforeDelete(ids: number[], wctx: WriteContext): Promise<void> {
  await refreshUsage(wctx, { ids, exclude: ids });
}

/** `family`, and `nat_outside`: the addresses whose NAT inside is this one (one query per page). */
export async function decorateAddresses(
  rows: Row[],
  out: Row[],
  c: { brief: boolean; service: ServiceContext; q: Queryable; base: string },
): Promise<void> {
  decorateFamily(rows, out, c.brief, 'address');
  // the seed's interface shape: its device with `display_name` too (NetBox before 3.0 had it), and
  // `connection_status`, which dcim computes for brief reads only: its events' nested form (ipam's
  // projection) lacks it, so it reads null here until dcim's references carry it
  for (const [i, rep] of out.entries()) {
    const assigned = rep.assigned_object as Row | null | undefined;
    if (!assigned || rows[i].assigned_object_type !== 'dcim.interface') continue;
    if (!('connection_status' in assigned)) assigned.connection_status = null;
    const device = assigned.device as Row | null | undefined;
    if (device && typeof device === 'object' && !('display_name' in device)) device.display_name = device.display ?? device.name;
  }
  if (c.brief || !out.some((o) => 'nat_outside' in o)) return;
  const ids = rows.map((r) => Number(r.id));
  const outside = await c.q.query(sql`SELECT id, nat_inside_id FROM ${table(c.service, 'ip_address')} WHERE nat_inside_id = ANY(${ids}::bigint[]) ORDER BY HOST(address)::inet, id`);
  const nested = await nestedFor(c.service, 'ipam.ipaddress', outside.map((r) => Number(r.id)), c.base, c.q);
  out.forEach((rep, i) => {
    if (!('nat_outside' in rep)) return;
    rep.nat_outside = outside.filter((o) => String(o.nat_inside_id) === String(rows[i].id)).map((o) => nested.get(Number(o.id))).filter(Boolean);
  });
}

/**
 * NetBox's IPRange.name: the chunks both host addresses share (in order, even
 * past a differing one), then the start's and the end's remaining chunks.
 */
export function rangeName(row: Row): string {
  const start = String(networkText(row.start_address) ?? '');
  const end = String(networkText(row.end_address) ?? '');
  const [startHost, mask] = start.split('/');
  const endHost = end.split('/')[0];
  const sep = startHost.includes(':') ? ':' : '.';
  const a = startHost.split(sep);
  const b = endHost.split(sep);
  const base = a.filter((chunk, i) => chunk === b[i]);
  return `${base.join(sep)}${sep}${a.slice(base.length).join(sep)}-${b.slice(base.length).join(sep)}/${mask}`;
}
