import { ValidationError } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { type FilterDef } from '@inventory/filtering';
import { defineModel, f, keyResolver, type FieldDef, type ModelDef, type Row, type ServiceContext, type UniqueDef, type WriteContext } from '@inventory/rest';

export interface TemplateOptions {
  label: string;
  endpoint: string;
  table: string;
  verboseName: string;
  /** NetBox's ModularComponentTemplateModel: a device type or a module type (exactly one); otherwise a device type alone. */
  modular: boolean;
  /** Fields between `label` and `description`. */
  fields?: Record<string, FieldDef>;
  /** Fields after `description` (an interface template's bridge and PoE). */
  after?: Record<string, FieldDef>;
  unique?: UniqueDef[];
  validate?: (row: Row, existing: Row | null, wctx: WriteContext) => Promise<void> | void;
}

/** NetBox's ColorField with blank=True: six lowercase hex digits, or '' (no color). */
export const blankColor = (): FieldDef =>
  f.string(6, { pattern: { regex: /^[0-9a-f]{6}$/, message: 'Enter a valid hexadecimal RGB color code.' } });

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * NetBox's component templates (ComponentTemplateModel): change-logged, no
 * tags or custom fields; display `name (label)`; brief `name`; ordered by
 * owner and natural name; name unique per device type and per module type.
 */
export function componentTemplate(o: TemplateOptions): ModelDef {
  const owner: Record<string, FieldDef> = o.modular
    ? {
        device_type: f.fk('dcim.devicetype', 'CASCADE', { nullable: true, filterKey: null }),
        module_type: f.fk('dcim.moduletype', 'CASCADE', { nullable: true, filterKey: null }),
      }
    : { device_type: f.fk('dcim.devicetype', 'CASCADE', { required: true, filterKey: null }) };
  const name = capitalized(o.verboseName);
  return defineModel({
    label: o.label,
    endpoint: o.endpoint,
    table: o.table,
    verboseName: o.verboseName,
    fields: {
      ...owner,
      name: f.name(64, { natural: true }),
      label: f.string(64),
      ...(o.fields ?? {}),
      description: f.description(),
      ...(o.after ?? {}),
    },
    tags: false,
    customFields: false,
    brief: ['name'],
    display: (row) => (row.label ? `${String(row.name)} (${String(row.label)})` : String(row.name)),
    ordering: o.modular ? ['device_type', 'module_type', 'name'] : ['device_type', 'name'],
    search: ['name', 'label', 'description'],
    filters: (ctx) => ownerFilters(ctx, o.modular),
    unique: [
      { fields: ['device_type', 'name'], message: `${name} with this Device type and Name already exists.` },
      ...(o.modular ? [{ fields: ['module_type', 'name'], message: `${name} with this Module type and Name already exists.` }] : []),
      ...(o.unique ?? []),
    ],
    hooks: {
      validate: async (row, existing, wctx) => {
        if (o.modular) checkOwner(row);
        await o.validate?.(row, existing, wctx);
      },
    },
  });
}

/**
 * NetBox 3.7's names of the owner filters (DeviceTypeComponentFilterSet:
 * `devicetype_id`, `moduletype_id`); the generated `device_type_id` and
 * `module_type_id`, what clients of earlier versions send, stay beside them.
 */
export function ownerFilters(ctx: ServiceContext, modular: boolean): FilterDef[] {
  const owner = (name: string, column: string, label: string): FilterDef => ({
    kind: 'relation',
    name,
    expr: sql`t.${raw(column)}`,
    resolve: keyResolver(ctx, label, 'id', false),
    keyType: 'integer',
  });
  return [owner('devicetype_id', 'device_type_id', 'dcim.devicetype'), ...(modular ? [owner('moduletype_id', 'module_type_id', 'dcim.moduletype')] : [])];
}

const isSet = (v: unknown) => v !== null && v !== undefined;

/** ModularComponentTemplateModel.clean(): exactly one of device type and module type. */
function checkOwner(row: Row): void {
  if (isSet(row.device_type_id) && isSet(row.module_type_id)) {
    throw new ValidationError({ __all__: ['A component template cannot be associated with both a device type and a module type.'] });
  }
  if (!isSet(row.device_type_id) && !isSet(row.module_type_id)) {
    throw new ValidationError({ __all__: ['A component template must be associated with either a device type or a module type.'] });
  }
}

/** The template a reference names (its owner, name and the columns asked for), or undefined. */
export async function templateRow(wctx: WriteContext, model: ModelDef, id: unknown, columns: string[] = []): Promise<Row | undefined> {
  if (!isSet(id)) return undefined;
  const extra = columns.map((c) => `, "${c}"`).join('');
  const [hit] = await wctx.tx.query(
    sql`SELECT id, name, label, device_type_id, ${raw(model.fields.module_type ? 'module_type_id' : 'NULL AS module_type_id')}${raw(extra)} FROM ${raw(wctx.service.db.table(model.table))} WHERE id = ${id}`,
  );
  return hit;
}

/** Both belong to the same device type and the same module type. */
export const sameOwner = (a: Row, b: Row) =>
  String(a.device_type_id ?? null) === String(b.device_type_id ?? null) && String(a.module_type_id ?? null) === String(b.module_type_id ?? null);

/** A template's string form (Django's str()): `name (label)` or `name`. */
export const templateName = (r: Row) => (r.label ? `${String(r.name)} (${String(r.label)})` : String(r.name));
