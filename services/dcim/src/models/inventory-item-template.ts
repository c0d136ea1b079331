import { defineModel, f, type ModelDef } from '@inventory/rest';
import { ownerFilters, templateName } from './component-template';
import { checkComponent, checkParent, componentFields } from './inventory-item-common';

/** NetBox 3.7's InventoryItemTemplate: inventory items a device type's devices are made with. */
export const inventoryItemTemplate: ModelDef = defineModel({
  label: 'dcim.inventoryitemtemplate',
  endpoint: 'inventory-item-templates',
  table: 'inventory_item_template',
  verboseName: 'inventory item template',
  fields: {
    device_type: f.fk('dcim.devicetype', 'CASCADE', { required: true, filterKey: null }),
    // NetBox's PrimaryKeyRelatedField: the parent reads and is written as its id
    parent: f.fk('dcim.inventoryitemtemplate', 'CASCADE', { nullable: true, filterKey: null, pk: true }),
    name: f.name(64, { natural: true }),
    label: f.string(64),
    role: f.fk('dcim.inventoryitemrole', 'SET_NULL'),
    manufacturer: f.fk('dcim.manufacturer', 'SET_NULL'),
    part_id: f.string(50, { label: 'part ID' }),
    description: f.description(),
    ...componentFields(true),
  },
  tree: true,
  tags: false,
  customFields: false,
  brief: ['name', '_depth'],
  display: templateName,
  ordering: ['device_type', '_tree'],
  search: ['name', 'label', 'part_id', 'description'],
  filters: (ctx) => ownerFilters(ctx, false),
  unique: [{ fields: ['device_type', 'parent', 'name'], message: 'Inventory item template with this Device type, Parent and Name already exists.' }],
  hooks: {
    validate: async (row, _existing, wctx) => {
      await checkParent(row, wctx, 'inventory_item_template', 'device_type_id');
      await checkComponent(row, wctx, 'device_type_id');
    },
  },
});
