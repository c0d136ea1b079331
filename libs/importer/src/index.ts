/** @inventory/importer: bringing an inventory in from NetBox and the device-type library (issue 25). */

// the device-type library (issue 25 item 5)
export * from './device-types';
