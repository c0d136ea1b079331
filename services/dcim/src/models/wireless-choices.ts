/** NetBox 3.7's wireless choice sets (wireless/choices.py) and lengths (wireless/constants.py). */

/** WirelessLANStatusChoices (configurable as `WirelessLAN.status`). */
export const WIRELESS_LAN_STATUS = [
  ['active', 'Active'],
  ['reserved', 'Reserved'],
  ['disabled', 'Disabled'],
  ['deprecated', 'Deprecated'],
] as const;

/** WirelessAuthTypeChoices. */
export const WIRELESS_AUTH_TYPE = [
  ['open', 'Open'],
  ['wep', 'WEP'],
  ['wpa-personal', 'WPA Personal (PSK)'],
  ['wpa-enterprise', 'WPA Enterprise'],
] as const;

/** WirelessAuthCipherChoices. */
export const WIRELESS_AUTH_CIPHER = [
  ['auto', 'Auto'],
  ['tkip', 'TKIP'],
  ['aes', 'AES'],
] as const;

/** SSID_MAX_LENGTH (IEEE 802.11-2007) and PSK_MAX_LENGTH. */
export const SSID_MAX_LENGTH = 32;
export const PSK_MAX_LENGTH = 64;
