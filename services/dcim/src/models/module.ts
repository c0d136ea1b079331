import { ValidationError } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { createdOf, defineModel, f, searchFilter, keyResolver, type ModelDef, type Row, type WriteContext } from '@inventory/rest';
import { MODULE_STATUS } from './choices';
import { instantiateModuleComponents } from './instantiate';

/** NetBox's Module (§2.14): installing one creates its module type's components on the device. */
export const module: ModelDef = defineModel({
  label: 'dcim.module',
  endpoint: 'modules',
  verboseName: 'module',
  fields: {
    device: f.fk('dcim.device', 'CASCADE', { required: true, filterKey: null }),
    module_bay: f.fk('dcim.modulebay', 'CASCADE', { required: true, filterKey: null, unique: 'Module with this Module bay already exists.' }),
    module_type: f.fk('dcim.moduletype', 'PROTECT', {
      required: true,
      filterKey: 'model',
      hops: [
        { name: 'manufacturer', via: 'manufacturer', to: 'dcim.manufacturer', key: 'slug' },
        { name: 'manufacturer_id', via: 'manufacturer', to: 'dcim.manufacturer', key: 'id' },
      ],
    }),
    status: f.choice(MODULE_STATUS, { default: 'active', nullable: false }),
    serial: f.string(50, { label: 'serial number', iexactFilter: true }),
    asset_tag: f.string(50, { nullable: true, unique: 'Module with this Asset tag already exists.' }),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['device', 'module_bay', 'module_type'],
  display: (row, rep) => `${String((rep.module_bay as Row | null)?.name ?? '')}: ${String((rep.module_type as Row | null)?.model ?? '')} (${String(row.id)})`,
  ordering: ['module_bay'],
  search: ['serial', 'asset_tag', 'description', 'comments'],
  filters: (ctx) => [
    searchFilter((p) => [
      sql`EXISTS (SELECT 1 FROM ${raw(ctx.db.table('device'))} d WHERE d.id = t.device_id AND d.name ILIKE ${p})`,
      sql`t.serial ILIKE ${p}`,
      sql`t.asset_tag ILIKE ${p}`,
      sql`t.description ILIKE ${p}`,
      sql`t.comments ILIKE ${p}`,
    ]),
    { kind: 'relation', name: 'module_type', expr: sql`t.module_type_id`, resolve: keyResolver(ctx, 'dcim.moduletype', 'model', false), keyType: 'string' },
  ],
  hooks: {
    validate: (row, _existing, wctx) => checkModule(row, wctx),
    afterSave: async (saved, wctx) => {
      const created = createdOf(saved).map((s) => s.id);
      // an import brings the source's own components (their ids kept), not new ones from the templates
      if (created.length && !wctx.importing) await instantiateModuleComponents(created, wctx);
    },
  },
});

/** Module.clean(): the bay belongs to the module's device. */
async function checkModule(row: Row, wctx: WriteContext): Promise<void> {
  const t = (name: string) => raw(wctx.service.db.table(name));
  const [hit] = await wctx.tx.query(sql`
    SELECT b.device_id, d.name, d.id AS did FROM ${t('module_bay')} b, ${t('device')} d WHERE b.id = ${row.module_bay_id ?? 0} AND d.id = ${row.device_id ?? 0}`);
  if (hit && String(hit.device_id) !== String(row.device_id)) {
    throw new ValidationError({ __all__: [`Module must be installed within a module bay belonging to the assigned device (${String(hit.name ?? hit.did)}).`] });
  }
}
