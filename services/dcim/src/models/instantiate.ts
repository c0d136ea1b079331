import { sql, raw, type Sql } from '@inventory/filtering';
import { noteTouched, withNaturalKeys, type Row, type WriteContext } from '@inventory/rest';

/**
 * One kind of component a template makes: the template table, the
 * component's model and table, the columns copied as they are, and a
 * reference to another template (a power outlet's power port, a front
 * port's rear port) that becomes the same-named component of the device.
 */
interface Kind {
  template: string;
  model: string;
  table: string;
  columns: string[];
  /** Column whose template is mapped to its instance: the instance is looked up by name on the same device. */
  ref?: { column: string; template: string; table: string };
  /** Owners: device types make all kinds, module types the modular ones. */
  modular: boolean;
}

/** In NetBox's order (Device.save): ports before the outlets and front ports that name them. */
const KINDS: Kind[] = [
  { template: 'console_port_template', model: 'dcim.consoleport', table: 'console_port', columns: ['type'], modular: true },
  { template: 'console_server_port_template', model: 'dcim.consoleserverport', table: 'console_server_port', columns: ['type'], modular: true },
  { template: 'power_port_template', model: 'dcim.powerport', table: 'power_port', columns: ['type', 'maximum_draw', 'allocated_draw'], modular: true },
  {
    template: 'power_outlet_template',
    model: 'dcim.poweroutlet',
    table: 'power_outlet',
    columns: ['type', 'feed_leg'],
    ref: { column: 'power_port_id', template: 'power_port_template', table: 'power_port' },
    modular: true,
  },
  {
    template: 'interface_template',
    model: 'dcim.interface',
    table: 'interface',
    columns: ['type', 'enabled', 'mgmt_only', 'poe_mode', 'poe_type', 'rf_role'],
    // bridges are set once every interface of the device exists (a second statement, only when a template has one)
    ref: { column: 'bridge_id', template: 'interface_template', table: 'interface' },
    modular: true,
  },
  { template: 'rear_port_template', model: 'dcim.rearport', table: 'rear_port', columns: ['type', 'color', 'positions'], modular: true },
  {
    template: 'front_port_template',
    model: 'dcim.frontport',
    table: 'front_port',
    columns: ['type', 'color', 'rear_port_position'],
    ref: { column: 'rear_port_id', template: 'rear_port_template', table: 'rear_port' },
    modular: true,
  },
  { template: 'module_bay_template', model: 'dcim.modulebay', table: 'module_bay', columns: ['position'], modular: false },
  { template: 'device_bay_template', model: 'dcim.devicebay', table: 'device_bay', columns: [], modular: false },
];

/** Whose templates to instantiate: new devices (their types' templates) or new modules (their module types', on their devices). */
interface Owners {
  /** Rows of (owner id, device id, type id, module id or null, module bay position or null). */
  select: Sql;
  typeColumn: 'device_type_id' | 'module_type_id';
}

/**
 * Creates the components of new devices from their device types' templates
 * (NetBox's Device._instantiate_components): one INSERT per component kind
 * for the whole batch, each new component with its change record and event.
 */
export async function instantiateComponents(deviceIds: number[], wctx: WriteContext): Promise<void> {
  const t = (name: string) => raw(wctx.service.db.table(name));
  await instantiate(
    { select: sql`SELECT d.id AS device_id, d.device_type_id AS type_id, NULL::bigint AS module_id, NULL::text AS position FROM ${t('device')} d WHERE d.id = ANY(${deviceIds}::bigint[])`, typeColumn: 'device_type_id' },
    wctx,
  );
}

/** The components of new modules from their module types' templates, on the module's device; `{module}` in names is the bay's position. */
export async function instantiateModuleComponents(moduleIds: number[], wctx: WriteContext): Promise<void> {
  const t = (name: string) => raw(wctx.service.db.table(name));
  await instantiate(
    {
      select: sql`SELECT m.device_id, m.module_type_id AS type_id, m.id AS module_id, b.position FROM ${t('module')} m JOIN ${t('module_bay')} b ON b.id = m.module_bay_id WHERE m.id = ANY(${moduleIds}::bigint[])`,
      typeColumn: 'module_type_id',
    },
    wctx,
  );
}

async function instantiate(owners: Owners, wctx: WriteContext): Promise<void> {
  const { service, tx } = wctx;
  const t = (name: string) => raw(service.db.table(name));
  for (const kind of KINDS) {
    const model = service.models.get(kind.model);
    if (!model || (owners.typeColumn === 'module_type_id' && !kind.modular)) continue;
    const refName = kind.ref ? sql`, rt.name AS __ref` : raw('');
    const refJoin = kind.ref ? sql`LEFT JOIN ${t(kind.ref.template)} rt ON rt.id = x.${raw(kind.ref.column)}` : raw('');
    const templates = await tx.query(sql`
      SELECT x.*, o.device_id, o.module_id, o.position AS __position${refName}
        FROM (${owners.select}) o JOIN ${t(kind.template)} x ON x.${raw(owners.typeColumn)} = o.type_id ${refJoin}
       ORDER BY o.device_id, x.id`);
    if (!templates.length) continue;
    const rows = templates.map((x) => {
      const sub = (v: unknown) => (x.__position === null || x.__position === undefined ? String(v ?? '') : String(v ?? '').replaceAll('{module}', String(x.__position)));
      const cols: Row = { device_id: x.device_id, module_id: x.module_id, name: sub(x.name), label: sub(x.label), description: x.description };
      for (const c of kind.columns) cols[c] = x[c];
      const out = withNaturalKeys(model, cols);
      if (kind.ref && x.__ref !== null && x.__ref !== undefined) out.__ref = sub(x.__ref);
      return out;
    });
    // module bays and device bays belong to the device alone (no module column)
    const names = Object.keys(rows[0]).filter((c) => c !== '__ref' && (kind.modular || c !== 'module_id'));
    const ownColumns = raw(names.map((c) => `"${c}"`).join(', '));
    const fromRecord = raw(names.map((c) => `(s.p)."${c}"`).join(', '));
    const record = sql`(SELECT jsonb_populate_record(NULL::${t(kind.table)}, j) AS p, j FROM jsonb_array_elements(${JSON.stringify(rows)}::jsonb) j) s`;
    // a reference to another kind (already created) is resolved in the same statement; to the same kind, once all exist
    const crossRef = kind.ref && kind.ref.table !== kind.table;
    const inserted = crossRef
      ? await tx.query(sql`
          INSERT INTO ${t(kind.table)} (${ownColumns}, ${raw(`"${kind.ref!.column}"`)})
          SELECT ${fromRecord}, (SELECT r.id FROM ${t(kind.ref!.table)} r WHERE r.device_id = (s.p).device_id AND r.name = s.j->>'__ref')
            FROM ${record} RETURNING id`)
      : await tx.query(sql`INSERT INTO ${t(kind.table)} (${ownColumns}) SELECT ${fromRecord} FROM ${record} RETURNING id`);
    if (kind.ref && !crossRef && rows.some((r) => r.__ref !== undefined)) {
      const pairs = rows.filter((r) => r.__ref !== undefined).map((r) => ({ device_id: r.device_id, name: r.name, ref: r.__ref }));
      await tx.query(sql`
        UPDATE ${t(kind.table)} c SET ${raw(`"${kind.ref.column}"`)} = b.id
          FROM jsonb_to_recordset(${JSON.stringify(pairs)}::jsonb) AS p(device_id bigint, name text, ref text), ${t(kind.table)} b
         WHERE c.device_id = p.device_id AND c.name = p.name AND b.device_id = p.device_id AND b.name = p.ref`);
    }
    noteTouched(wctx, model, { created: inserted.map((r) => Number(r.id)).sort((a, b) => a - b) });
  }
}
