import { sql, raw, ident, join, type Sql } from '@inventory/filtering';
import { naturalize, noteTouched, withNaturalKeys, type Row, type WriteContext } from '@inventory/rest';

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
  // a module's template names carry `{module}`: the bay's position
  const named = (alias: string, column: string) => sql`CASE WHEN o.position IS NULL THEN ${raw(`${alias}.${column}`)} ELSE replace(${raw(`${alias}.${column}`)}, '{module}', o.position) END`;
  for (const kind of KINDS) {
    const model = service.models.get(kind.model);
    if (!model || (owners.typeColumn === 'module_type_id' && !kind.modular)) continue;
    const from = sql`FROM (${owners.select}) o JOIN ${t(kind.template)} x ON x.${raw(owners.typeColumn)} = o.type_id`;
    // a reference to another kind (created before) is the device's component named as the template's target
    const crossRef = kind.ref && kind.ref.table !== kind.table ? kind.ref : null;
    const columns = ['device_id', ...(kind.modular ? ['module_id'] : []), 'name', '_name', 'label', 'description', ...kind.columns, ...(crossRef ? [crossRef.column] : [])];
    const values = [
      sql`o.device_id`,
      ...(kind.modular ? [sql`o.module_id`] : []),
      named('x', 'name'),
      sql`x._name`,
      named('x', 'label'),
      sql`x.description`,
      ...kind.columns.map((c) => sql`x.${ident(c)}`),
      ...(crossRef
        ? [sql`(SELECT r.id FROM ${t(crossRef.table)} r JOIN ${t(crossRef.template)} rt ON rt.id = x.${ident(crossRef.column)} WHERE r.device_id = o.device_id AND r.name = ${named('rt', 'name')})`]
        : []),
    ];
    const inserted = await tx.query(sql`
      INSERT INTO ${t(kind.table)} (${join(columns.map((c) => ident(c)), ', ')})
      SELECT ${join(values, ', ')} ${from} ORDER BY o.device_id, x.id
      RETURNING id, name, _name`);
    if (!inserted.length) continue;
    // names a module's position changed get their own sort keys
    const rekeyed = inserted.map((r) => ({ id: Number(r.id), key: naturalize(String(r.name)) })).filter((r, i) => r.key !== inserted[i]._name);
    if (rekeyed.length) {
      await tx.query(sql`UPDATE ${t(kind.table)} c SET _name = k.key FROM json_to_recordset(${JSON.stringify(rekeyed)}::json) AS k(id bigint, key text) WHERE c.id = k.id`);
    }
    if (kind.ref && !crossRef) {
      // a reference within the kind (an interface's bridge), once all of the device's exist
      await tx.query(sql`
        UPDATE ${t(kind.table)} c SET ${ident(kind.ref.column)} = b.id
          ${from} JOIN ${t(kind.ref.template)} rt ON rt.id = x.${ident(kind.ref.column)}
          JOIN ${t(kind.table)} b ON b.device_id = o.device_id AND b.name = ${named('rt', 'name')}
         WHERE c.device_id = o.device_id AND c.name = ${named('x', 'name')}`);
    }
    noteTouched(wctx, model, { created: inserted.map((r) => Number(r.id)).sort((a, b) => a - b) });
  }
}
