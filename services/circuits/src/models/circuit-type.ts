import { defineModel, f, type ModelDef } from '@inventory/rest';

export const circuitType: ModelDef = defineModel({
  label: 'circuits.circuittype',
  endpoint: 'circuit-types',
  table: 'circuit_type',
  verboseName: 'circuit type',
  fields: {
    name: f.name(100, { unique: true }),
    slug: f.slug(100, { unique: true }),
    // NetBox's ColorField(blank=True): '' or six lowercase hex digits
    color: f.string(6, { pattern: { regex: /^[0-9a-f]{6}$/, message: 'Enter a valid hexadecimal RGB color code.' } }),
    description: f.description(),
  },
  brief: ['name', 'slug', 'circuit_count'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'slug', 'description'],
  counts: { circuit_count: { model: 'circuits.circuit', field: 'type' } },
});
