import { defineModel, f, type ModelDef } from '@inventory/rest';

/** NetBox's InventoryItemRole. */
export const inventoryItemRole: ModelDef = defineModel({
  label: 'dcim.inventoryitemrole',
  endpoint: 'inventory-item-roles',
  table: 'inventory_item_role',
  verboseName: 'inventory item role',
  fields: {
    name: f.name(100, { unique: 'Inventory item role with this Name already exists.' }),
    slug: f.slug(100, { unique: 'Inventory item role with this Slug already exists.' }),
    color: f.color({ default: '9e9e9e' }),
    description: f.description(),
  },
  brief: ['name', 'slug', 'inventoryitem_count'],
  display: (row) => String(row.name),
  ordering: ['name'],
  search: ['name', 'slug', 'description'],
  counts: { inventoryitem_count: { model: 'dcim.inventoryitem', field: 'role' } },
});
