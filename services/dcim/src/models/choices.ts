/** NetBox 3.7's dcim choice sets used by these models (dcim/choices.py). */

/** SiteStatusChoices (configurable as `dcim.Site.status`). */
export const SITE_STATUS = [
  ['planned', 'Planned'],
  ['staging', 'Staging'],
  ['active', 'Active'],
  ['decommissioning', 'Decommissioning'],
  ['retired', 'Retired'],
] as const;

/** LocationStatusChoices: the same values as the site's. */
export const LOCATION_STATUS = SITE_STATUS;

/** RackStatusChoices (configurable as `dcim.Rack.status`). */
export const RACK_STATUS = [
  ['reserved', 'Reserved'],
  ['available', 'Available'],
  ['planned', 'Planned'],
  ['active', 'Active'],
  ['deprecated', 'Deprecated'],
] as const;

/** RackTypeChoices. */
export const RACK_TYPE = [
  ['2-post-frame', '2-post frame'],
  ['4-post-frame', '4-post frame'],
  ['4-post-cabinet', '4-post cabinet'],
  ['wall-frame', 'Wall-mounted frame'],
  ['wall-frame-vertical', 'Wall-mounted frame (vertical)'],
  ['wall-cabinet', 'Wall-mounted cabinet'],
  ['wall-cabinet-vertical', 'Wall-mounted cabinet (vertical)'],
] as const;

/** RackWidthChoices: integer values. */
export const RACK_WIDTH = [
  [10, '10 inches'],
  [19, '19 inches'],
  [21, '21 inches'],
  [23, '23 inches'],
] as const;

/** RackDimensionUnitChoices. */
export const RACK_DIMENSION_UNIT = [
  ['mm', 'Millimeters'],
  ['in', 'Inches'],
] as const;

/** WeightUnitChoices (racks; device and module types too). */
export const WEIGHT_UNIT = [
  ['kg', 'Kilograms'],
  ['g', 'Grams'],
  ['lb', 'Pounds'],
  ['oz', 'Ounces'],
] as const;

/** SubdeviceRoleChoices. */
export const SUBDEVICE_ROLE = [
  ['parent', 'Parent'],
  ['child', 'Child'],
] as const;

/** DeviceAirflowChoices (device types; devices too). */
export const DEVICE_AIRFLOW = [
  ['front-to-rear', 'Front to rear'],
  ['rear-to-front', 'Rear to front'],
  ['left-to-right', 'Left to right'],
  ['right-to-left', 'Right to left'],
  ['side-to-rear', 'Side to rear'],
  ['passive', 'Passive'],
  ['mixed', 'Mixed'],
] as const;

/** DeviceStatusChoices (configurable). */
export const DEVICE_STATUS = [
  ['offline', 'Offline'],
  ['active', 'Active'],
  ['planned', 'Planned'],
  ['staged', 'Staged'],
  ['failed', 'Failed'],
  ['inventory', 'Inventory'],
  ['decommissioning', 'Decommissioning'],
] as const;

/** DeviceFaceChoices. */
export const DEVICE_FACE = [
  ['front', 'Front'],
  ['rear', 'Rear'],
] as const;

/** ModuleStatusChoices (configurable). */
export const MODULE_STATUS = [
  ['offline', 'Offline'],
  ['active', 'Active'],
  ['planned', 'Planned'],
  ['staged', 'Staged'],
  ['failed', 'Failed'],
  ['decommissioning', 'Decommissioning'],
] as const;

/** InventoryItemStatusChoices (configurable). */
export const INVENTORY_ITEM_STATUS = MODULE_STATUS;

/** VirtualDeviceContextStatusChoices. */
export const VDC_STATUS = [
  ['active', 'Active'],
  ['planned', 'Planned'],
  ['offline', 'Offline'],
] as const;
