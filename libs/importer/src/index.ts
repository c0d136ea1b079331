/** @inventory/importer: bringing an inventory in from NetBox and the device-type library (issue 25). */
export * from './netbox';
