import type { Choice } from '@inventory/rest';

export const PREFIX_STATUS: readonly Choice[] = [
  ['container', 'Container'],
  ['active', 'Active'],
  ['reserved', 'Reserved'],
  ['deprecated', 'Deprecated'],
];

export const IPRANGE_STATUS: readonly Choice[] = [
  ['active', 'Active'],
  ['reserved', 'Reserved'],
  ['deprecated', 'Deprecated'],
];

export const IPADDRESS_STATUS: readonly Choice[] = [
  ['active', 'Active'],
  ['reserved', 'Reserved'],
  ['deprecated', 'Deprecated'],
  ['dhcp', 'DHCP'],
  ['slaac', 'SLAAC'],
];

export const IPADDRESS_ROLE: readonly Choice[] = [
  ['loopback', 'Loopback'],
  ['secondary', 'Secondary'],
  ['anycast', 'Anycast'],
  ['vip', 'VIP'],
  ['vrrp', 'VRRP'],
  ['hsrp', 'HSRP'],
  ['glbp', 'GLBP'],
  ['carp', 'CARP'],
];

/** Roles exempt from the duplicate check (NetBox's IPADDRESS_ROLES_NONUNIQUE). */
export const NONUNIQUE_ROLES: readonly string[] = ['anycast', 'vip', 'vrrp', 'hsrp', 'glbp', 'carp'];

/**
 * What an IP address may be assigned to (NetBox's IPADDRESS_ASSIGNMENT_MODELS),
 * each with how its parent (the device or VM whose primary IP it may be) is
 * found: the parent's label and the field of the assigned object naming it.
 * An FHRP group has no parent. Add a model here to make it assignable.
 */
export const ASSIGNMENT_PARENTS: Record<string, { label: string; field: string } | null> = {
  'dcim.interface': { label: 'dcim.device', field: 'device' },
  'ipam.fhrpgroup': null,
  'virtualization.vminterface': { label: 'virtualization.virtualmachine', field: 'virtual_machine' },
};

export const ASSIGNABLE: readonly string[] = Object.keys(ASSIGNMENT_PARENTS);

/** Assignments to an interface (`assigned_to_interface`). */
export const INTERFACE_TYPES: readonly string[] = ['dcim.interface', 'virtualization.vminterface'];
