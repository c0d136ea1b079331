import { ValidationError } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { capture, memo, noteTouched, projection, projectedModels, type Row, type WriteContext } from '@inventory/rest';

const isSet = (v: unknown) => v !== null && v !== undefined && v !== '';
const fail = (field: string, message: string): never => {
  throw new ValidationError({ [field]: [message] });
};

/** A decimal as Python prints it (`1.0`, `2.5`). */
const dec = (v: unknown) => {
  const n = Number(v);
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
};

/** Half-unit steps from `from` (inclusive) to `to` (exclusive), as tenths (integers compare exactly). */
function halfUnits(from: number, to: number): number[] {
  const out: number[] = [];
  for (let u = Math.round(from * 10); u < Math.round(to * 10); u += 5) out.push(u);
  return out;
}

/** What the rules read about the objects a device names, in one statement (once per request for the same objects). */
function related(row: Row, wctx: WriteContext): Promise<Row> {
  const key = ['device-related', row.site_id, row.rack_id, row.location_id, row.device_type_id, row.platform_id].map((v) => String(v ?? null)).join(':');
  return memo(wctx, key, () => readRelated(row, wctx));
}

async function readRelated(row: Row, wctx: WriteContext): Promise<Row> {
  const t = (name: string) => raw(wctx.service.db.table(name));
  const [hit] = await wctx.tx.query(sql`
    SELECT s.name AS site_name,
           r.name AS rack_name, r.site_id AS rack_site_id, r.location_id AS rack_location_id, r.u_height AS rack_u_height, r.starting_unit AS rack_start,
           l.name AS location_name, l.site_id AS location_site_id,
           dt.model AS type_model, dt.u_height AS type_u_height, dt.subdevice_role AS type_role, dt.is_full_depth AS type_full_depth,
           dt.manufacturer_id AS type_manufacturer_id, tm.name AS type_manufacturer,
           p.manufacturer_id AS platform_manufacturer_id, pm.name AS platform_manufacturer
      FROM (SELECT 1) one
      LEFT JOIN ${t('site')} s ON s.id = ${row.site_id ?? null}
      LEFT JOIN ${t('rack')} r ON r.id = ${row.rack_id ?? null}
      LEFT JOIN ${t('location')} l ON l.id = ${row.location_id ?? null}
      LEFT JOIN ${t('device_type')} dt ON dt.id = ${row.device_type_id ?? null}
      LEFT JOIN ${t('manufacturer')} tm ON tm.id = dt.manufacturer_id
      LEFT JOIN ${t('platform')} p ON p.id = ${row.platform_id ?? null}
      LEFT JOIN ${t('manufacturer')} pm ON pm.id = p.manufacturer_id`);
  return hit;
}

/** NetBox's Device.clean(), rule by rule in its order (§2.13). */
export async function checkDevice(row: Row, existing: Row | null, wctx: WriteContext): Promise<void> {
  const r = await related(row, wctx);
  const site = String(r.site_name);
  if (isSet(row.rack_id) && String(r.rack_site_id) !== String(row.site_id)) fail('rack', `Rack ${String(r.rack_name)} does not belong to site ${site}.`);
  if (isSet(row.location_id) && String(r.location_site_id) !== String(row.site_id)) fail('location', `Location ${String(r.location_name)} does not belong to site ${site}.`);
  if (isSet(row.rack_id) && isSet(row.location_id) && String(r.rack_location_id ?? null) !== String(row.location_id)) {
    fail('rack', `Rack ${String(r.rack_name)} does not belong to location ${String(r.location_name)}.`);
  }
  const position = isSet(row.position) ? Number(row.position) : null;
  if (!isSet(row.rack_id)) {
    if (row.face) fail('face', 'Cannot select a rack face without assigning a rack.');
    if (position) fail('position', 'Cannot select a rack position without assigning a rack.');
  }
  if (position && Math.round(position * 10) % 5 !== 0) fail('position', 'Position must be in increments of 0.5 rack units.');
  if (position && !row.face) fail('face', 'Must specify rack face when defining rack position.');
  const height = Number(r.type_u_height ?? 0);
  if (position && height === 0) fail('position', `A U0 device type (${String(r.type_model)}) cannot be assigned to a rack position.`);
  if (isSet(row.rack_id)) {
    const child = r.type_role === 'child';
    if (child && row.face) fail('face', 'Child device types cannot be assigned to a rack face. This is an attribute of the parent device.');
    if (child && position) fail('position', 'Child device types cannot be assigned to a rack position. This is an attribute of the parent device.');
    if (position) await checkRackSpace(row, existing, r, position, height, wctx);
  }
  await checkAddresses(row, wctx);
  if (isSet(row.platform_id) && isSet(r.platform_manufacturer_id) && String(r.platform_manufacturer_id) !== String(r.type_manufacturer_id)) {
    fail(
      'platform',
      `The assigned platform is limited to ${String(r.platform_manufacturer)} device types, but this device's type belongs to ${String(r.type_manufacturer)}.`,
    );
  }
  await checkCluster(row, wctx);
  if (isSet(row.virtual_chassis_id) && !isSet(row.vc_position)) fail('vc_position', 'A device assigned to a virtual chassis must have its position defined.');
  if (existing && isSet(existing.virtual_chassis_id) && String(existing.virtual_chassis_id) !== String(row.virtual_chassis_id ?? null)) {
    const [vc] = await wctx.tx.query(sql`SELECT name FROM ${raw(wctx.service.db.table('virtual_chassis'))} WHERE id = ${existing.virtual_chassis_id} AND master_id = ${existing.id}`);
    if (vc) fail('virtual_chassis', `Device cannot be removed from virtual chassis ${String(vc.name)} because it is currently designated as its master.`);
  }
}

/** Rack.get_available_units(): the units from `position` for the type's height are free on the face (both faces for full depth). */
async function checkRackSpace(row: Row, existing: Row | null, r: Row, position: number, height: number, wctx: WriteContext): Promise<void> {
  const fits = await fitsInRack(wctx, {
    rack: Number(row.rack_id),
    start: Number(r.rack_start ?? 1),
    units: Number(r.rack_u_height ?? 0),
    position,
    height,
    face: String(row.face ?? ''),
    fullDepth: r.type_full_depth !== false,
    exclude: Number(existing?.id ?? 0),
  });
  if (!fits) {
    fail(
      'position',
      `U${dec(position)} is already occupied or does not have sufficient space to accommodate this device type: ${String(r.type_model)} (${dec(height)}U)`,
    );
  }
}

/** Whether a device of `height` fits at `position` in the rack, the other devices (but `exclude`) as they are mounted. */
export async function fitsInRack(
  wctx: WriteContext,
  o: { rack: number; start: number; units: number; position: number; height: number; face: string; fullDepth: boolean; exclude: number },
): Promise<boolean> {
  const t = (name: string) => raw(wctx.service.db.table(name));
  const others = await wctx.tx.query(sql`
    SELECT d.position, d.face, dt.u_height, dt.is_full_depth FROM ${t('device')} d JOIN ${t('device_type')} dt ON dt.id = d.device_type_id
     WHERE d.rack_id = ${o.rack} AND d.position >= 1 AND NOT dt.exclude_from_utilization AND d.id <> ${o.exclude}`);
  const free = new Set(halfUnits(o.start, o.start + o.units));
  for (const d of others) {
    if (o.fullDepth || d.face === o.face || d.is_full_depth) for (const u of halfUnits(Number(d.position), Number(d.position) + Number(d.u_height))) free.delete(u);
  }
  return halfUnits(o.position, o.position + o.height).every((u) => free.has(u)) && free.has(Math.round(o.position * 10));
}

/**
 * DeviceType.clean() on racked instances: a taller type must still fit
 * every racked device of it, and a type with racked devices cannot become 0U.
 */
export async function checkRackedInstances(row: Row, existing: Row, wctx: WriteContext): Promise<void> {
  const before = Number(existing.u_height ?? 0);
  const after = Number(row.u_height ?? 0);
  if (after === before) return;
  const t = (name: string) => raw(wctx.service.db.table(name));
  const racked = await wctx.tx.query(sql`
    SELECT d.id, d.name, d.position, d.face, r.id AS rack, r.name AS rack_name, r.starting_unit, r.u_height
      FROM ${t('device')} d JOIN ${t('rack')} r ON r.id = d.rack_id WHERE d.device_type_id = ${existing.id} AND d.position IS NOT NULL ORDER BY d.id`);
  if (after > before) {
    for (const d of racked) {
      const fits = await fitsInRack(wctx, {
        rack: Number(d.rack),
        start: Number(d.starting_unit),
        units: Number(d.u_height),
        position: Number(d.position),
        height: after,
        face: String(d.face),
        fullDepth: row.is_full_depth !== false,
        exclude: Number(d.id),
      });
      if (!fits) {
        fail('u_height', `Device ${String(d.name ?? d.id)} in rack ${String(d.rack_name)} does not have sufficient space to accommodate a height of ${dec(after)}U`);
      }
    }
  } else if (before > 0 && after === 0 && racked.length) {
    fail('u_height', `Unable to set 0U height: Found ${racked.length} instances already mounted within racks.`);
  }
}

/**
 * Primary and out-of-band IPs (ipam's, from this service's projection):
 * IPv4 and IPv6 where named so, and assigned to an interface of this
 * device or of its virtual chassis, directly or as the NAT inside of one.
 */
async function checkAddresses(row: Row, wctx: WriteContext): Promise<void> {
  const fields = (['primary_ip4', 'primary_ip6', 'oob_ip'] as const).filter((n) => isSet(row[`${n}_id`]));
  if (!fields.length || !projectedModels(wctx.service).has('ipam.ipaddress')) return;
  const ips = projection(wctx.service, 'ipam.ipaddress');
  const t = (name: string) => raw(wctx.service.db.table(name));
  const members = sql`SELECT id FROM ${t('device')} WHERE id = ${row.id ?? 0} OR (virtual_chassis_id IS NOT NULL AND virtual_chassis_id = ${row.virtual_chassis_id ?? null})`;
  for (const name of fields) {
    const [ip] = await wctx.tx.query(sql`
      SELECT a.data->>'address' AS address,
             EXISTS (SELECT 1 FROM ${t('interface')} i
                      WHERE i.device_id IN (${members})
                        AND ((a.data->>'assigned_object_type' = 'dcim.interface' AND (a.data->>'assigned_object_id')::bigint = i.id)
                          OR (n.data->>'assigned_object_type' = 'dcim.interface' AND (n.data->>'assigned_object_id')::bigint = i.id))) AS assigned
        FROM ${ips} a LEFT JOIN ${ips} n ON n.id = (a.data->>'nat_inside')::bigint AND NOT n.deleted
       WHERE a.id = ${row[`${name}_id`]} AND NOT a.deleted`);
    if (!ip) continue;
    const v6 = String(ip.address).includes(':');
    if (name === 'primary_ip4' && v6) fail(name, `${String(ip.address)} is not an IPv4 address.`);
    if (name === 'primary_ip6' && !v6) fail(name, `${String(ip.address)} is not an IPv6 address.`);
    if (!ip.assigned) fail(name, `The specified IP address (${String(ip.address)}) is not assigned to this device.`);
  }
}

/** A device can only be in a cluster of its own site (or of no site); the cluster is virtualization's, read from the projection. */
async function checkCluster(row: Row, wctx: WriteContext): Promise<void> {
  if (!isSet(row.cluster_id) || !projectedModels(wctx.service).has('virtualization.cluster')) return;
  const [hit] = await wctx.tx.query(sql`
    SELECT (c.data->>'site')::bigint AS site_id, s.name FROM ${projection(wctx.service, 'virtualization.cluster')} c
      LEFT JOIN ${raw(wctx.service.db.table('site'))} s ON s.id = (c.data->>'site')::bigint
     WHERE c.id = ${row.cluster_id} AND NOT c.deleted`);
  if (hit && hit.site_id !== null && String(hit.site_id) !== String(row.site_id)) fail('cluster', `The assigned cluster belongs to a different site (${String(hit.name)})`);
}

/**
 * Device.save(): a new device takes its type's airflow and default platform
 * when it names none; a racked device takes its rack's location.
 */
export async function deviceDefaults(columns: Row, existing: Row | null, wctx: WriteContext): Promise<void> {
  const merged = { ...(existing ?? {}), ...columns };
  const t = (name: string) => raw(wctx.service.db.table(name));
  if (!existing && (!merged.airflow || !isSet(merged.platform_id))) {
    const [dt] = await memo(wctx, `device-type-defaults:${String(merged.device_type_id)}`, () =>
      wctx.tx.query(sql`SELECT airflow, default_platform_id FROM ${t('device_type')} WHERE id = ${merged.device_type_id}`),
    );
    if (dt && !merged.airflow) columns.airflow = dt.airflow;
    if (dt && !isSet(merged.platform_id) && dt.default_platform_id !== null) columns.platform_id = dt.default_platform_id;
  }
  if (isSet(merged.rack_id) && ('rack_id' in columns || 'location_id' in columns)) {
    const [rack] = await memo(wctx, `rack-location:${String(merged.rack_id)}`, () => wctx.tx.query(sql`SELECT location_id FROM ${t('rack')} WHERE id = ${merged.rack_id}`));
    if (rack?.location_id !== null && rack?.location_id !== undefined) columns.location_id = rack.location_id;
  }
}

/**
 * Device.save(): the devices installed in this one's bays take its site,
 * rack and location when those change (each a change with its event).
 */
export async function moveChildren(id: number, columns: Row, existing: Row, wctx: WriteContext): Promise<void> {
  const moved = ['site_id', 'rack_id', 'location_id'].filter((c) => c in columns && String(columns[c] ?? null) !== String(existing[c] ?? null));
  if (!moved.length) return;
  const t = (name: string) => raw(wctx.service.db.table(name));
  const model = wctx.service.models.get('dcim.device')!;
  const children = await wctx.tx.query(sql`
    SELECT d.* FROM ${t('device')} d JOIN ${t('device_bay')} b ON b.installed_device_id = d.id WHERE b.device_id = ${id} ORDER BY d.id FOR UPDATE OF d`);
  if (!children.length) return;
  await capture(wctx.service, model, wctx, children);
  const [parent] = await wctx.tx.query(sql`SELECT site_id, rack_id, location_id FROM ${t('device')} WHERE id = ${id}`);
  await wctx.tx.query(sql`
    UPDATE ${t('device')} SET site_id = ${parent.site_id}, rack_id = ${parent.rack_id}, location_id = ${parent.location_id}, _version = _version + 1, last_updated = now()
     WHERE id = ANY(${children.map((c) => c.id)}::bigint[])`);
  noteTouched(wctx, model, { updated: children });
}
