/** @inventory/importer: bringing an inventory in from NetBox and the device-type library (issue 25). */

// copying a NetBox instance (issue 25 items 1-4)
export * from './netbox';
// the device-type library (issue 25 item 5)
export * from './device-types';
