import { sql, raw } from '@inventory/filtering';
import { defineModel, f, type ModelDef } from '@inventory/rest';
import { checkNotMoved, componentDevice, componentDisplay, componentSearch, deviceComponentFilters } from './device-component';

/** NetBox 3.7's ModuleBay: a device component a module is installed in (`installed_module`, the module naming it). */
export const moduleBay: ModelDef = defineModel({
  label: 'dcim.modulebay',
  endpoint: 'module-bays',
  table: 'module_bay',
  verboseName: 'module bay',
  fields: {
    device: componentDevice(),
    name: f.name(64, { natural: true }),
    installed_module: f.json({ virtual: true, readOnly: true, filter: false, orderable: false }),
    label: f.string(64),
    position: f.string(30),
    description: f.description(),
  },
  brief: ['installed_module', 'name'],
  display: componentDisplay,
  ordering: ['device', 'name'],
  search: ['name', 'label', 'description'],
  unique: [{ fields: ['device', 'name'], message: 'Module bay with this Device and Name already exists.' }],
  filters: (ctx) => [...deviceComponentFilters(ctx), componentSearch()],
  hooks: {
    validate: (row, existing) => checkNotMoved(row, existing),
    // the module installed in each bay, as NetBox nests it: {id, url, display, serial}
    decorate: async (rows, out, c) => {
      const t = (name: string) => raw(c.service.db.table(name));
      const found = await c.q.query(sql`
        SELECT m.id, m.module_bay_id, m.serial, b.name AS bay, mt.model FROM ${t('module')} m
          JOIN ${t('module_bay')} b ON b.id = m.module_bay_id JOIN ${t('module_type')} mt ON mt.id = m.module_type_id
         WHERE m.module_bay_id = ANY(${rows.map((r) => Number(r.id))}::bigint[])`);
      const byBay = new Map(found.map((m) => [String(m.module_bay_id), m]));
      out.forEach((rep, i) => {
        const m = byBay.get(String(rows[i].id));
        rep.installed_module = m
          ? { id: Number(m.id), url: `${c.base}/api/dcim/modules/${String(m.id)}/`, display: `${String(m.bay)}: ${String(m.model)} (${String(m.id)})`, serial: m.serial }
          : null;
      });
    },
  },
});
