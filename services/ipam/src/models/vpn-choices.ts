import type { Choice } from '@inventory/rest';

/** NetBox 3.7's vpn choices (vpn/choices.py), values and labels exactly; grouped ones flattened in order. */

export const TUNNEL_STATUS: Choice[] = [
  ['planned', 'Planned'],
  ['active', 'Active'],
  ['disabled', 'Disabled'],
];

export const TUNNEL_ENCAPSULATION: Choice[] = [
  ['ipsec-transport', 'IPsec - Transport'],
  ['ipsec-tunnel', 'IPsec - Tunnel'],
  ['ip-ip', 'IP-in-IP'],
  ['gre', 'GRE'],
];

export const TUNNEL_TERMINATION_ROLE: Choice[] = [
  ['peer', 'Peer'],
  ['hub', 'Hub'],
  ['spoke', 'Spoke'],
];

export const IKE_VERSION: Choice[] = [
  [1, 'IKEv1'],
  [2, 'IKEv2'],
];

export const IKE_MODE: Choice[] = [
  ['aggressive', 'Aggressive'],
  ['main', 'Main'],
];

export const AUTHENTICATION_METHOD: Choice[] = [
  ['preshared-keys', 'Pre-shared keys'],
  ['certificates', 'Certificates'],
  ['rsa-signatures', 'RSA signatures'],
  ['dsa-signatures', 'DSA signatures'],
];

export const IPSEC_MODE: Choice[] = [
  ['esp', 'ESP'],
  ['ah', 'AH'],
];

export const ENCRYPTION_ALGORITHM: Choice[] = [
  ['aes-128-cbc', '128-bit AES (CBC)'],
  ['aes-128-gcm', '128-bit AES (GCM)'],
  ['aes-192-cbc', '192-bit AES (CBC)'],
  ['aes-192-gcm', '192-bit AES (GCM)'],
  ['aes-256-cbc', '256-bit AES (CBC)'],
  ['aes-256-gcm', '256-bit AES (GCM)'],
  ['3des-cbc', '3DES'],
  ['des-cbc', 'DES'],
];

export const AUTHENTICATION_ALGORITHM: Choice[] = [
  ['hmac-sha1', 'SHA-1 HMAC'],
  ['hmac-sha256', 'SHA-256 HMAC'],
  ['hmac-sha384', 'SHA-384 HMAC'],
  ['hmac-sha512', 'SHA-512 HMAC'],
  ['hmac-md5', 'MD5 HMAC'],
];

/** Diffie-Hellman groups (IANA's IKEv2 transform type 4): integer values. */
export const DH_GROUP: Choice[] = [1, 2, 5, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34].map((n) => [n, `Group ${n}`] as const);

/** L2VPN types (NetBox groups them: VPLS, VXLAN, L2VPN E-VPN, E-Line, E-LAN, E-Tree). */
export const L2VPN_TYPE: Choice[] = [
  ['vpws', 'VPWS'],
  ['vpls', 'VPLS'],
  ['vxlan', 'VXLAN'],
  ['vxlan-evpn', 'VXLAN-EVPN'],
  ['mpls-evpn', 'MPLS EVPN'],
  ['pbb-evpn', 'PBB EVPN'],
  ['epl', 'EPL'],
  ['evpl', 'EVPL'],
  ['ep-lan', 'Ethernet Private LAN'],
  ['evp-lan', 'Ethernet Virtual Private LAN'],
  ['ep-tree', 'Ethernet Private Tree'],
  ['evp-tree', 'Ethernet Virtual Private Tree'],
];

/** Point-to-point L2VPN types: two terminations at most. */
export const L2VPN_P2P = ['vpws', 'epl', 'ep-lan', 'ep-tree'];
