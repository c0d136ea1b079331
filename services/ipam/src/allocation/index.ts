/**
 * Free-space search for the ipam allocation endpoints (spec §4.1–4.3): all IP arithmetic in
 * PostgreSQL on inet/cidr values, reading the occupied values in index order bounded by the parent.
 */
export { type QueryRunner } from './walk';
export { availablePrefixIps, availableRangeIps, MAX_COUNT, type AddressTable, type RangeTable, type PrefixIpsQuery, type RangeIpsQuery } from './free-addresses';
export { availablePrefixes, allocatePrefixes, type PrefixTable, type PrefixQuery } from './free-prefixes';
export { vrfIs } from './vrf';
