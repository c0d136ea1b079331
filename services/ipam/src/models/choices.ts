import type { Choice } from '@inventory/rest';

/** A VLAN's status: integer values, as the seed shows them (NetBox's labels). */
export const VLAN_STATUS: Choice[] = [
  [1, 'Active'],
  [2, 'Reserved'],
  [3, 'Deprecated'],
];

/** FHRP protocols (NetBox's FHRPGroupProtocolChoices, its groups flattened). */
export const FHRP_PROTOCOLS: Choice[] = [
  ['vrrp2', 'VRRPv2'],
  ['vrrp3', 'VRRPv3'],
  ['carp', 'CARP'],
  ['clusterxl', 'ClusterXL'],
  ['hsrp', 'HSRP'],
  ['glbp', 'GLBP'],
  ['other', 'Other'],
];

/** FHRP authentication types. */
export const FHRP_AUTH_TYPES: Choice[] = [
  ['plaintext', 'Plaintext'],
  ['md5', 'MD5'],
];

/** Service (and service template) protocols. */
export const SERVICE_PROTOCOLS: Choice[] = [
  ['tcp', 'TCP'],
  ['udp', 'UDP'],
  ['sctp', 'SCTP'],
];
