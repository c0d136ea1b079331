import { sql, raw } from '@inventory/filtering';
import { nestedFor, type Queryable, type Row, type ServiceContext } from '@inventory/rest';

interface DecorateContext {
  brief: boolean;
  service: ServiceContext;
  q: Queryable;
  base: string;
  wants?: (key: string) => boolean;
}

/**
 * What a device shows beyond its columns: the seed's nested `display_name`
 * (brief); `device_role` (the role again), `primary_ip` and `parent_device`
 * (the bay of a parent device this one is installed in) in full.
 */
export async function decorateDevices(rows: Row[], out: Row[], c: DecorateContext): Promise<void> {
  const wants = c.wants ?? (() => true);
  if (c.brief) {
    for (const rep of out) if ('display' in rep) rep.display_name = rep.display;
    return;
  }
  for (const rep of out) {
    if ('device_role' in rep) rep.device_role = rep.role ?? null;
    // NetBox's PREFER_IPV4 is false: IPv6 first
    if ('primary_ip' in rep) rep.primary_ip = rep.primary_ip6 ?? rep.primary_ip4 ?? null;
  }
  if (wants('parent_device')) await parentDevices(rows, out, c);
}

/** `{id, url, display, name, device_bay: {id, url, display, device, name}}` of the parent each device is installed in. */
async function parentDevices(rows: Row[], out: Row[], c: DecorateContext): Promise<void> {
  const base = c.base;
  const bays = await c.q.query(sql`
    SELECT b.id, b.name, b.label, b.device_id, b.installed_device_id FROM ${raw(c.service.db.table('device_bay'))} b
     WHERE b.installed_device_id = ANY(${rows.map((r) => Number(r.id))}::bigint[])`);
  const parents = bays.length ? await nestedFor(c.service, 'dcim.device', bays.map((b) => Number(b.device_id)), base, c.q) : new Map<number, Row>();
  const byChild = new Map(bays.map((b) => [String(b.installed_device_id), b]));
  out.forEach((rep, i) => {
    if (!('parent_device' in rep)) return;
    const bay = byChild.get(String(rows[i].id));
    const parent = bay ? parents.get(Number(bay.device_id)) : undefined;
    rep.parent_device = bay && parent
      ? {
          ...parent,
          device_bay: {
            id: Number(bay.id),
            url: `${base}/api/dcim/device-bays/${String(bay.id)}/`,
            display: bay.label ? `${String(bay.name)} (${String(bay.label)})` : String(bay.name),
            device: parent,
            name: bay.name,
          },
        }
      : null;
  });
}
