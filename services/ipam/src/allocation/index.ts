/**
 * Free-space search for the ipam allocation endpoints (spec §4.1–4.3): all IP arithmetic in
 * PostgreSQL on inet/cidr values, reading the occupied values in index order bounded by the parent
 * (the indexes: docs/decisions/019-ip-index.md).
 *
 * - `available-prefixes` GET: `availablePrefixes`; POST: `allocatePrefixes` (null → 409).
 * - `available-ips` of a prefix GET: `availablePrefixIps` with `count` = the sanitised `limit`;
 *   POST: the same with `count` = the number of items (fewer answers than items → 409).
 * - `available-ips` of an IP range: `availableRangeIps`, likewise.
 * The caller chooses the rows (VRF: `vrfIs`; a global container's addresses: no `where`), passes
 * the block-usage summary of the same rows (`usage`, `usageScope`) for dense parents, and
 * holds the endpoint's advisory lock around a POST's search and inserts.
 */
export { type QueryRunner } from './walk';
export { availablePrefixIps, availableRangeIps, MAX_COUNT, type AddressTable, type RangeTable, type PrefixIpsQuery, type RangeIpsQuery } from './free-addresses';
export { availablePrefixes, allocatePrefixes, type PrefixTable, type PrefixQuery } from './free-prefixes';
export { vrfIs } from './vrf';
export { allocationIndexDdl, type AllocationTables } from './indexes';
export { refreshBlockUsage, blockUsageFromScratch, usageScope, ALL_VRFS, GLOBAL_TABLE, type UsageTable, type UsageChange } from './usage';
