import { ValidationError } from '@inventory/core';
import { defineModel, f, type ModelDef } from '@inventory/rest';
import { WEIGHT_UNIT } from './choices';
import { templateFilters, typeSearchFilter } from './type-filters';

/** NetBox's ModuleType. */
export const moduleType: ModelDef = defineModel({
  label: 'dcim.moduletype',
  endpoint: 'module-types',
  table: 'module_type',
  verboseName: 'module type',
  fields: {
    manufacturer: f.fk('dcim.manufacturer', 'PROTECT', { required: true }),
    model: f.string(100, { required: true }),
    part_number: f.string(50),
    weight: f.decimal({ maxDigits: 8, decimalPlaces: 2, nullable: true }),
    weight_unit: f.choice(WEIGHT_UNIT, { blank: true, singleFilter: true }),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['manufacturer', 'model'],
  display: (row) => String(row.model),
  ordering: ['manufacturer', 'model'],
  search: ['model', 'part_number', 'description', 'comments'],
  unique: [{ fields: ['manufacturer', 'model'], message: 'Module type with this Manufacturer and Model already exists.' }],
  filters: (ctx) => [typeSearchFilter(ctx), ...templateFilters(ctx, 'module_type_id', false)],
  hooks: {
    validate: (row) => {
      if (row.weight !== null && row.weight !== undefined && Number(row.weight) !== 0 && !row.weight_unit) {
        throw new ValidationError({ __all__: ['Must specify a unit when setting a weight'] });
      }
    },
  },
});
