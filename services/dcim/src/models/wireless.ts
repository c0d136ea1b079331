import { ValidationError } from '@inventory/core';
import { sql, raw, type FilterDef } from '@inventory/filtering';
import { capture, defineModel, f, noteTouched, remove, TENANT_GROUP_HOPS, type ModelDef, type Row, type Saved, type WriteContext } from '@inventory/rest';
import { LINK_STATUS } from './cable-choices';
import { INTERFACE_TYPE, WIRELESS_INTERFACE_TYPES } from './component-choices';
import { componentName } from './component';
import { CABLE_PATH_TABLE, WIRELESS_LINK, createPath, node } from '../cabling/paths';
import { PSK_MAX_LENGTH, SSID_MAX_LENGTH, WIRELESS_AUTH_CIPHER, WIRELESS_AUTH_TYPE, WIRELESS_LAN_STATUS } from './wireless-choices';

/**
 * NetBox 3.7's wireless app (`/api/wireless/`), served by dcim beside the
 * interfaces its links join (decision 028): wireless LAN groups (a tree),
 * wireless LANs and wireless links.
 */

/** WirelessAuthenticationBase: the authentication fields a LAN and a link share. */
const authFields = () => ({
  auth_type: f.choice(WIRELESS_AUTH_TYPE, { blank: true, label: 'authentication type' }),
  auth_cipher: f.choice(WIRELESS_AUTH_CIPHER, { blank: true, label: 'authentication cipher' }),
  auth_psk: f.string(PSK_MAX_LENGTH, { label: 'pre-shared key' }),
});

/**
 * NetBox's WirelessLANGroup (a NestedGroupModel): name and slug unique
 * among all groups (not only siblings, unlike regions), `parent`/`parent_id`
 * the direct parent, `wirelesslan_count` the LANs of the group and of its
 * descendants (the API's add_related_count, cumulative).
 */
export const wirelessLanGroup: ModelDef = defineModel({
  label: 'wireless.wirelesslangroup',
  endpoint: 'wireless-lan-groups',
  table: 'wireless_lan_group',
  verboseName: 'wireless LAN group',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    parent: f.fk('wireless.wirelesslangroup', 'CASCADE', { nullable: true }),
    description: f.description(),
  },
  tree: true,
  brief: ['name', 'slug', 'wirelesslan_count', '_depth'],
  display: (row) => String(row.name),
  // the API's queryset is the MPTT manager's: tree order
  ordering: ['_tree'],
  search: ['name', 'slug', 'description'],
  // wireless_wirelesslangroup_unique_parent_name (the names are unique anyway: the field's rule speaks first)
  unique: [{ fields: ['parent', 'name'], message: 'Wireless LAN group with this Parent and Name already exists.' }],
  counts: { wirelesslan_count: { model: 'wireless.wirelesslan', field: 'group', tree: true } },
});

/** NetBox's WirelessLAN: `group` and `group_id` match the group's descendants too (TreeNodeMultipleChoiceFilter). */
export const wirelessLan: ModelDef = defineModel({
  label: 'wireless.wirelesslan',
  endpoint: 'wireless-lans',
  table: 'wireless_lan',
  verboseName: 'wireless LAN',
  fields: {
    ssid: f.name(SSID_MAX_LENGTH, { label: 'SSID' }),
    // the serializer lists `description` twice: DRF keeps its first place
    description: f.description(),
    group: f.fk('wireless.wirelesslangroup', 'SET_NULL', { nullable: true, treeFilter: true }),
    status: f.choice(WIRELESS_LAN_STATUS, { default: 'active', nullable: false }),
    // ipam's VLANs (another service): read from dcim's projection of them; NetBox filters by `vlan_id` only
    vlan: f.fk('ipam.vlan', 'PROTECT', { nullable: true, filterKey: null, label: 'VLAN' }),
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    ...authFields(),
    comments: f.comments(),
  },
  brief: ['ssid'],
  display: (row) => String(row.ssid),
  ordering: ['ssid', 'id'],
  search: ['ssid', 'description'],
});

const typeLabel = (type: unknown) => INTERFACE_TYPE.find(([v]) => v === type)?.[1] ?? String(type);
const isSet = (v: unknown) => v !== null && v !== undefined && v !== '';

/**
 * NetBox's WirelessLink: two wireless interfaces (PROTECT: an interface in a
 * link cannot be deleted; its device can, and takes the link along, as
 * NetBox's `_interface_a_device` CASCADE does). Saving a link sets the
 * interfaces' `wireless_link`; deleting it clears them (the interface's
 * SET_NULL reference).
 */
export const wirelessLink: ModelDef = defineModel({
  label: 'wireless.wirelesslink',
  endpoint: 'wireless-links',
  table: 'wireless_link',
  verboseName: 'wireless link',
  fields: {
    // NetBox filters them by number (MultiValueNumberFilter, the numeric lookups), not as references
    interface_a: f.fk('dcim.interface', 'PROTECT', { required: true, filter: false, label: 'interface A' }),
    interface_b: f.fk('dcim.interface', 'PROTECT', { required: true, filter: false, label: 'interface B' }),
    ssid: f.string(SSID_MAX_LENGTH, { label: 'SSID' }),
    status: f.choice(LINK_STATUS, { default: 'connected', nullable: false }),
    tenant: f.fk('tenancy.tenant', 'PROTECT', { nullable: true, hops: TENANT_GROUP_HOPS }),
    ...authFields(),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['ssid'],
  display: (row) => (row.ssid ? String(row.ssid) : `#${String(row.id)}`),
  ordering: ['id'],
  search: ['ssid', 'description'],
  unique: [{ fields: ['interface_a', 'interface_b'], message: 'Wireless link with this Interface A and Interface B already exists.' }],
  filters: (): FilterDef[] => [
    { kind: 'integer', name: 'interface_a_id', expr: sql`t.interface_a_id` },
    { kind: 'integer', name: 'interface_b_id', expr: sql`t.interface_b_id` },
  ],
  hooks: {
    validate: (row, existing, wctx) => checkLink(row, existing, wctx),
    afterSave: (saved, wctx) => attachInterfaces(saved, wctx),
    beforeDelete: (ids, wctx) => detachInterfaces(ids, wctx),
  },
});

interface End {
  id: number;
  name: string;
  label: string;
  type: string;
  device: string;
}

/** The interfaces a link names, locked (two links written at once cannot both take one interface). */
async function endsOf(wctx: WriteContext, ids: number[]): Promise<Map<number, End>> {
  const db = wctx.service.db;
  const rows = await wctx.tx.query(
    sql`SELECT i.id, i.name, i.label, i.type, COALESCE(d.name, '') AS device FROM ${raw(db.table('interface'))} i JOIN ${raw(db.table('device'))} d ON d.id = i.device_id
         WHERE i.id = ANY(${ids}::bigint[]) ORDER BY i.id FOR UPDATE OF i`,
  );
  return new Map(rows.map((r) => [Number(r.id), r as unknown as End]));
}

/**
 * WirelessLink.clean() (both ends wireless; NetBox names `interface_a` for
 * either end's error), and what keeps an interface's one `wireless_link`
 * true: the two ends differ, and neither is in another link.
 */
async function checkLink(row: Row, existing: Row | null, wctx: WriteContext): Promise<void> {
  if (!isSet(row.interface_a_id) || !isSet(row.interface_b_id)) return;
  const a = Number(row.interface_a_id);
  const b = Number(row.interface_b_id);
  const ends = await endsOf(wctx, [a, b]);
  for (const id of [a, b]) {
    const end = ends.get(id);
    if (end && !WIRELESS_INTERFACE_TYPES.has(end.type)) throw new ValidationError({ interface_a: [`${typeLabel(end.type)} is not a wireless interface.`] });
  }
  if (a === b) throw new ValidationError({ interface_b: ['A wireless link cannot connect an interface to itself.'] });
  const self = existing ? Number(existing.id) : 0;
  const taken = await wctx.tx.query(
    sql`SELECT id, ssid, interface_a_id, interface_b_id FROM ${raw(wctx.service.db.table(wirelessLink.table))}
         WHERE id <> ${self} AND (interface_a_id = ANY(${[a, b]}::bigint[]) OR interface_b_id = ANY(${[a, b]}::bigint[])) ORDER BY id`,
  );
  // the same two ends again: the unique rule's own message (wireless_wirelesslink_unique_interfaces)
  if (taken.some((l) => Number(l.interface_a_id) === a && Number(l.interface_b_id) === b)) return;
  for (const [field, id] of [['interface_a', a], ['interface_b', b]] as const) {
    const other = taken.find((l) => Number(l.interface_a_id) === id || Number(l.interface_b_id) === id);
    const end = ends.get(id);
    if (other && end) throw new ValidationError({ [field]: [alreadyLinked(end, other)] });
  }
}

const alreadyLinked = (end: End, link: Row) =>
  `Interface ${componentName(end as unknown as Row)} of ${end.device} already has a wireless link (${link.ssid ? String(link.ssid) : `#${String(link.id)}`}).`;

/**
 * NetBox's update_connected_interfaces: each end's `wireless_link` names the
 * link (an update of the interface, with its change record and event); an
 * end a link no longer joins is cleared. A bulk write that names one
 * interface in two of its links is refused as a whole.
 */
async function attachInterfaces(saved: Saved[], wctx: WriteContext): Promise<void> {
  const ctx = wctx.service;
  const iface = ctx.models.get('dcim.interface');
  if (!iface) return;
  const table = raw(ctx.db.table(iface.table));
  const links = raw(ctx.db.table(wirelessLink.table));
  const set = new Map<number, number>();
  const cleared = new Set<number>();
  for (const s of saved) {
    const merged = { ...(s.existing ?? {}), ...s.columns };
    const now = [Number(merged.interface_a_id), Number(merged.interface_b_id)];
    for (const id of now) set.set(id, s.id);
    if (s.existing) for (const id of [Number(s.existing.interface_a_id), Number(s.existing.interface_b_id)]) if (!now.includes(id)) cleared.add(id);
  }
  const ids = [...set.keys()];
  const twice = await wctx.tx.query(
    sql`SELECT e.id, count(*) AS n FROM (SELECT interface_a_id AS id FROM ${links} UNION ALL SELECT interface_b_id FROM ${links}) e
         WHERE e.id = ANY(${ids}::bigint[]) GROUP BY e.id HAVING count(*) > 1 ORDER BY e.id`,
  );
  if (twice.length) {
    const id = Number(twice[0].id);
    const [end] = (await endsOf(wctx, [id])).values();
    const field = saved.some((s) => Number({ ...(s.existing ?? {}), ...s.columns }.interface_b_id) === id) ? 'interface_b' : 'interface_a';
    throw new ValidationError({ [field]: [`Interface ${end ? componentName(end as unknown as Row) : String(id)} is named by more than one wireless link.`] });
  }
  const rows = await wctx.tx.query(sql`SELECT * FROM ${table} WHERE id = ANY(${[...ids, ...cleared]}::bigint[]) ORDER BY id FOR UPDATE`);
  const own = new Set(saved.map((s) => s.id));
  const linkOf = (r: Row) => (r.wireless_link_id === null || r.wireless_link_id === undefined ? null : Number(r.wireless_link_id));
  const stale = rows.filter((r) => (set.has(Number(r.id)) ? linkOf(r) !== set.get(Number(r.id)) : own.has(linkOf(r) ?? 0)));
  if (stale.length) {
    await capture(ctx, iface, wctx, stale);
    const targets = stale.map((r) => Number(r.id));
    await wctx.tx.query(
      sql`UPDATE ${table} t SET wireless_link_id = w.link, _version = t._version + 1, last_updated = now()
           FROM unnest(${targets}::bigint[], ${targets.map((id) => set.get(id) ?? null)}::bigint[]) AS w(id, link) WHERE t.id = w.id`,
    );
    noteTouched(wctx, iface, { updated: stale });
  }
  // the paths from each end across its link (NetBox's create_cablepath per interface): traced again on every save (a
  // status change makes them active or not), and gone from an end the link left
  await wctx.tx.query(sql`DELETE FROM ${raw(ctx.db.table(CABLE_PATH_TABLE))} WHERE _nodes && ${saved.map((s) => node(WIRELESS_LINK, s.id))}::text[]`);
  for (const id of [...ids, ...cleared]) await createPath(ctx, wctx.tx, 'dcim.interface', [id]);
}

/** NetBox's nullify_connected_interfaces: the paths across the links go (the interfaces' `wireless_link` is cleared by its SET_NULL). */
async function detachInterfaces(ids: number[], wctx: WriteContext): Promise<void> {
  const paths = raw(wctx.service.db.table(CABLE_PATH_TABLE));
  await wctx.tx.query(sql`DELETE FROM ${paths} WHERE _nodes && ${ids.map((id) => node(WIRELESS_LINK, id))}::text[]`);
}

/**
 * Before devices are deleted: the wireless links of their interfaces go
 * first (NetBox's `_interface_a_device` / `_interface_b_device` CASCADE),
 * each a delete of its own, so the interfaces' PROTECT does not refuse it.
 */
export async function deleteDeviceLinks(ids: number[], wctx: WriteContext): Promise<void> {
  const ctx = wctx.service;
  const links = raw(ctx.db.table(wirelessLink.table));
  const ifaces = raw(ctx.db.table('interface'));
  const rows = await wctx.tx.query(
    sql`SELECT * FROM ${links} WHERE interface_a_id IN (SELECT id FROM ${ifaces} WHERE device_id = ANY(${ids}::bigint[]))
         OR interface_b_id IN (SELECT id FROM ${ifaces} WHERE device_id = ANY(${ids}::bigint[])) ORDER BY id FOR UPDATE`,
  );
  if (!rows.length) return;
  await capture(ctx, wirelessLink, wctx, rows);
  await remove(ctx, wirelessLink, rows.map((r) => Number(r.id)), wctx);
  noteTouched(wctx, wirelessLink, { deleted: rows });
}
