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
  await instantiateInventoryItems(deviceIds, wctx);
}

/**
 * Inventory items from the device types' inventory item templates, a tree:
 * one level at a time (an INSERT and the tree keys' UPDATE per level, for
 * every new device at once), each item's parent the instance of its
 * template's parent, and its component the device's component of the same
 * name as the template's (NetBox's InventoryItemTemplate.instantiate).
 */
async function instantiateInventoryItems(deviceIds: number[], wctx: WriteContext): Promise<void> {
  const { service, tx } = wctx;
  const model = service.models.get('dcim.inventoryitem');
  if (!model) return;
  const t = (name: string) => raw(service.db.table(name));
  const templates = await tx.query(sql`
    SELECT d.id AS device_id, x.id AS template_id, x.parent_id, x._depth, x.name, x.label, x.role_id, x.manufacturer_id, x.part_id, x.description,
           x.component_type, x.component_id
      FROM ${t('device')} d JOIN ${t('inventory_item_template')} x ON x.device_type_id = d.device_type_id
     WHERE d.id = ANY(${deviceIds}::bigint[]) ORDER BY x._depth, d.id, x.id`);
  if (!templates.length) return;
  // the component a template names, by its name, becomes the device's component of that name
  const componentNames = new Map<string, string>();
  for (const [label, table] of Object.entries(TEMPLATE_COMPONENTS)) {
    const ids = templates.filter((x) => x.component_type === label).map((x) => Number(x.component_id));
    if (!ids.length) continue;
    const found = await tx.query(sql`SELECT id, name FROM ${t(table.template)} WHERE id = ANY(${ids}::bigint[])`);
    for (const f of found) componentNames.set(`${label}:${String(f.id)}`, String(f.name));
  }
  const made = new Map<string, number>(); // `${device}:${template}` → item id
  const created: number[] = [];
  const depths = [...new Set(templates.map((x) => Number(x._depth)))].sort((a, b) => a - b);
  for (const depth of depths) {
    const level = templates.filter((x) => Number(x._depth) === depth);
    const rows: (Row & { __component: { table: string; name: string | undefined } | null })[] = level.map((x) => {
      const target = x.component_type ? TEMPLATE_COMPONENTS[String(x.component_type)] : undefined;
      return {
        ...withNaturalKeys(model, {
          device_id: x.device_id,
          parent_id: x.parent_id === null ? null : (made.get(`${String(x.device_id)}:${String(x.parent_id)}`) ?? null),
          name: x.name,
          label: x.label,
          role_id: x.role_id,
          manufacturer_id: x.manufacturer_id,
          part_id: x.part_id,
          description: x.description,
          component_type: target ? target.label : null,
        }),
        __component: target ? { table: target.table, name: componentNames.get(`${String(x.component_type)}:${String(x.component_id)}`) } : null,
      };
    });
    const byTable = new Map<string, number[]>();
    rows.forEach((r, i) => r.__component && byTable.set(r.__component.table, [...(byTable.get(r.__component.table) ?? []), i]));
    const plain: Row[] = rows.map(({ __component, ...r }) => ({ ...r, __component_name: __component?.name ?? null }));
    const inserted = await tx.query(sql`
      INSERT INTO ${t('inventory_item')} (device_id, parent_id, name, _name, label, role_id, manufacturer_id, part_id, description, component_type, status, discovered)
      SELECT (j->>'device_id')::bigint, (j->>'parent_id')::bigint, j->>'name', j->>'_name', j->>'label', (j->>'role_id')::bigint, (j->>'manufacturer_id')::bigint,
             j->>'part_id', j->>'description', j->>'component_type', 'active', FALSE
        FROM json_array_elements(${JSON.stringify(plain)}::json) WITH ORDINALITY AS e(j, n) ORDER BY n
      RETURNING id`);
    // ids come from the sequence in insertion order: ascending is the rows' order
    const ids = inserted.map((r) => Number(r.id)).sort((a, b) => a - b);
    level.forEach((x, i) => made.set(`${String(x.device_id)}:${String(x.template_id)}`, ids[i]));
    for (const [table, at] of byTable) {
      const pairs = at.map((i) => ({ id: ids[i], device_id: plain[i].device_id, name: plain[i].__component_name }));
      await tx.query(sql`
        UPDATE ${t('inventory_item')} it SET component_id = c.id
          FROM jsonb_to_recordset(${JSON.stringify(pairs)}::jsonb) AS p(id bigint, device_id bigint, name text), ${t(table)} c
         WHERE it.id = p.id AND c.device_id = p.device_id AND c.name = p.name`);
    }
    // the tree keys, as the engine keeps them on every write (depth, ancestor path, tree sort key)
    await tx.query(sql`
      UPDATE ${t('inventory_item')} c
         SET _depth = COALESCE(p._depth + 1, 0), _path = COALESCE(p._path, '{}') || c.id,
             _tree_sort = COALESCE(p._tree_sort, '{}') || (c.name || ' ' || lpad(c.id::text, 20, '0'))
        FROM ${t('inventory_item')} c2 LEFT JOIN ${t('inventory_item')} p ON p.id = c2.parent_id
       WHERE c.id = c2.id AND c.id = ANY(${ids}::bigint[])`);
    created.push(...ids);
  }
  noteTouched(wctx, model, { created });
}

/** The components inventory item templates may name, by template label: the component model and tables. */
const TEMPLATE_COMPONENTS: Record<string, { label: string; template: string; table: string }> = Object.fromEntries(
  KINDS.filter((k) => k.modular).map((k) => [k.model.replace(/$/, 'template'), { label: k.model, template: k.template, table: k.table }]),
);

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
    const record = sql`(SELECT json_populate_record(NULL::${t(kind.table)}, j) AS p, j FROM json_array_elements(${JSON.stringify(rows)}::json) j) s`;
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
