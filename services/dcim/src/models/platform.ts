import { sql, raw } from '@inventory/filtering';
import { defineModel, f, type ModelDef } from '@inventory/rest';

/** NetBox's Platform. */
export const platform: ModelDef = defineModel({
  label: 'dcim.platform',
  endpoint: 'platforms',
  verboseName: 'platform',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    manufacturer: f.fk('dcim.manufacturer', 'PROTECT', { nullable: true }),
    config_template: f.fk('extras.configtemplate', 'PROTECT', { nullable: true, filterKey: null }),
    description: f.description(),
  },
  brief: ['name', 'slug', 'device_count', 'virtualmachine_count'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'slug', 'description'],
  // platforms a device of the type may run: of no manufacturer, or of the type's
  filters: (ctx) => [
    {
      kind: 'relation',
      name: 'available_for_device_type',
      expr: sql`t.id`,
      keyType: 'integer',
      resolve: async (values) => {
        const rows = await ctx.db.query(sql`
          SELECT dt.id::text AS k, p.id FROM ${raw(ctx.db.table('device_type'))} dt JOIN ${raw(ctx.db.table('platform'))} p
            ON p.manufacturer_id IS NULL OR p.manufacturer_id = dt.manufacturer_id WHERE dt.id = ANY(${values.filter((v) => /^\d+$/.test(v)).map(Number)}::bigint[])`);
        const known = await ctx.db.query(sql`SELECT id::text AS k FROM ${raw(ctx.db.table('device_type'))} WHERE id = ANY(${values.filter((v) => /^\d+$/.test(v)).map(Number)}::bigint[])`);
        const out = new Map<string, number[]>(known.map((k) => [String(k.k), []]));
        for (const r of rows) out.get(String(r.k))!.push(Number(r.id));
        return out;
      },
    },
  ],
  counts: {
    device_count: { model: 'dcim.device', field: 'platform' },
    virtualmachine_count: { model: 'virtualization.virtualmachine', field: 'platform' },
  },
});
