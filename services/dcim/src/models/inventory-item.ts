import { defineModel, f, type ModelDef } from '@inventory/rest';
import { INVENTORY_ITEM_STATUS } from './choices';
import { checkNotMoved, componentDevice, componentDisplay, componentSearch, deviceComponentFilters } from './device-component';
import { checkComponent, checkParent, componentFields } from './inventory-item-common';

/** NetBox 3.7's InventoryItem: a tree of parts within a device, optionally standing for one of its components. */
export const inventoryItem: ModelDef = defineModel({
  label: 'dcim.inventoryitem',
  endpoint: 'inventory-items',
  table: 'inventory_item',
  verboseName: 'inventory item',
  fields: {
    device: componentDevice(),
    // NetBox's PrimaryKeyRelatedField: the parent reads and is written as its id
    parent: f.fk('dcim.inventoryitem', 'CASCADE', { nullable: true, filterKey: null, pk: true }),
    name: f.name(64, { natural: true }),
    label: f.string(64),
    status: f.choice(INVENTORY_ITEM_STATUS, { default: 'active', nullable: false }),
    role: f.fk('dcim.inventoryitemrole', 'SET_NULL'),
    manufacturer: f.fk('dcim.manufacturer', 'SET_NULL'),
    part_id: f.string(50, { label: 'part ID' }),
    serial: f.string(50, { label: 'serial number', iexactFilter: true }),
    asset_tag: f.string(50, { nullable: true, unique: 'Inventory item with this Asset tag already exists.' }),
    discovered: f.boolean(false),
    description: f.description(),
    ...componentFields(false),
  },
  tree: true,
  brief: ['device', 'name', '_depth'],
  display: componentDisplay,
  ordering: ['device', '_tree'],
  search: ['name', 'label', 'description', 'part_id', 'serial', 'asset_tag'],
  unique: [{ fields: ['device', 'parent', 'name'], message: 'Inventory item with this Device, Parent and Name already exists.' }],
  // `role` is the item's own role here (its device's role is `device_role`)
  filters: (ctx) => [...deviceComponentFilters(ctx).filter((d) => d.name !== 'role' && d.name !== 'role_id'), componentSearch()],
  hooks: {
    validate: async (row, existing, wctx) => {
      checkNotMoved(row, existing);
      await checkParent(row, wctx, 'inventory_item', 'device_id');
      await checkComponent(row, wctx, 'device_id');
    },
  },
});
