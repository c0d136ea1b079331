import { sql, raw, type FilterDef } from '@inventory/filtering';
import { defineModel, f, type CountDef, type FieldDef, type ModelDef, type ModelHooks, type Row, type ServiceContext, type UniqueDef, type WriteContext } from '@inventory/rest';
import { checkNotMoved, componentDevice, deviceComponentFilters } from './device-component';
import { cabledFields, cabledFilters, checkCabled, decorateCabled, deleteCabled, endpointFields, occupiedField } from '../cabling/cabled';

export interface ComponentOptions {
  label: string;
  endpoint: string;
  table: string;
  verboseName: string;
  /** Fields between `label` and `description`. */
  fields?: Record<string, FieldDef>;
  /** Fields after `description`, before the cabled fields (none so far). */
  after?: Record<string, FieldDef>;
  /** Fields after the cabled (and endpoint) fields: an interface's VLANs, VRF. */
  tail?: Record<string, FieldDef>;
  /** Fields between the device and the module (an interface's `vdcs`). */
  beforeModule?: Record<string, FieldDef>;
  /** NetBox's PathEndpoint: the endpoint fields and the `connected` filter. */
  pathEndpoint?: boolean;
  unique?: UniqueDef[];
  /** Extra filters (the per-model `type` and friends come from the fields). */
  filters?: (ctx: ServiceContext) => FilterDef[];
  validate?: (row: Row, existing: Row | null, wctx: WriteContext, body: Row) => Promise<void> | void;
  hooks?: Partial<ModelHooks>;
  /** Brief fields besides NetBox's `device, name, cable, _occupied`. */
  brief?: string[];
  /** Counts of other objects naming the component (an interface's addresses, from ipam). */
  counts?: Record<string, CountDef>;
  /** Other services' models its hooks and filters read (kept as projections): an interface's L2VPN terminations. */
  reads?: ModelDef['reads'];
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * NetBox's device components (ComponentModel + ModularComponentModel +
 * CabledObjectModel [+ PathEndpoint]): a device (required, CASCADE) and an
 * optional module (CASCADE); `name` natural and unique per device; display
 * `name (label)`; the cabled fields; DeviceComponent filters. The columns
 * they share with their templates have the templates' names, so a device's
 * components can be made from its type's templates with INSERT … SELECT.
 */
export function component(o: ComponentOptions): ModelDef {
  const endpoint = !!o.pathEndpoint;
  const name = capitalized(o.verboseName);
  return defineModel({
    label: o.label,
    endpoint: o.endpoint,
    table: o.table,
    verboseName: o.verboseName,
    fields: {
      device: componentDevice(),
      ...(o.beforeModule ?? {}),
      module: f.fk('dcim.module', 'CASCADE', { nullable: true, filterKey: null }),
      name: f.name(64, { natural: true }),
      label: f.string(64),
      ...(o.fields ?? {}),
      description: f.description(),
      ...(o.after ?? {}),
      ...cabledFields(),
      ...(endpoint ? endpointFields() : {}),
      ...(o.tail ?? {}),
      _occupied: occupiedField(),
    },
    brief: ['device', 'name', 'cable', ...(o.brief ?? []), '_occupied'],
    display: (row) => (row.label ? `${String(row.name)} (${String(row.label)})` : String(row.name)),
    ordering: ['device', 'name'],
    search: ['name', 'label', 'description'],
    unique: [{ fields: ['device', 'name'], message: `${name} with this Device and Name already exists.` }, ...(o.unique ?? [])],
    filters: (ctx) => [...deviceComponentFilters(ctx), ...cabledFilters(ctx, endpoint), ...(o.filters?.(ctx) ?? [])],
    ...(o.counts ? { counts: o.counts } : {}),
    ...(o.reads ? { reads: o.reads } : {}),
    hooks: {
      decorate: decorateCabled(endpoint, o.label === 'dcim.interface'),
      beforeDelete: deleteCabled(o.label),
      ...(o.hooks ?? {}),
      validate: async (row, existing, wctx, body) => {
        checkNotMoved(row, existing);
        checkCabled(row);
        await o.validate?.(row, existing, wctx, body);
      },
    },
  });
}

/** The component a reference names (its device, name, label and the columns asked for), or undefined. */
export async function componentRow(wctx: WriteContext, table: string, id: unknown, columns: string[] = []): Promise<Row | undefined> {
  if (id === null || id === undefined) return undefined;
  const extra = columns.map((c) => `, "${c}"`).join('');
  const [hit] = await wctx.tx.query(sql`SELECT id, name, label, device_id${raw(extra)} FROM ${raw(wctx.service.db.table(table))} WHERE id = ${id}`);
  return hit;
}

/** A component's string form (Django's str()): `name (label)` or `name`. */
export const componentName = (r: Row) => (r.label ? `${String(r.name)} (${String(r.label)})` : String(r.name));
