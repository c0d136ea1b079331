import { quoteIdent } from '@inventory/filtering';

export interface AllocationTables {
  /** e.g. `ipam.ip_address` (inet `address`) */
  ipAddress: string;
  /** e.g. `ipam.prefix` (cidr `prefix`) */
  prefix: string;
  /** e.g. `ipam.ip_range` (inet `start_address`, `end_address`) */
  ipRange?: string;
}

const qualified = (name: string) => name.split('.').map(quoteIdent).join('.');
const bare = (name: string) => name.split('.').at(-1)!;

/**
 * The btree indexes the searches read (docs/decisions/019-ip-index.md), as `CREATE INDEX IF NOT
 * EXISTS` statements for a migration: the host of an address (exactly `CAST(HOST(address) AS
 * inet)`, so the planner matches the searches' and the spec's expression), the raw address, the
 * prefix, and the host of a range's start.
 */
export function allocationIndexDdl(t: AllocationTables): string[] {
  const ddl = [
    `CREATE INDEX IF NOT EXISTS ${quoteIdent(`${bare(t.ipAddress)}_host_idx`)} ON ${qualified(t.ipAddress)} ((CAST(HOST(address) AS inet)))`,
    `CREATE INDEX IF NOT EXISTS ${quoteIdent(`${bare(t.ipAddress)}_address_idx`)} ON ${qualified(t.ipAddress)} (address)`,
    `CREATE INDEX IF NOT EXISTS ${quoteIdent(`${bare(t.prefix)}_prefix_idx`)} ON ${qualified(t.prefix)} (prefix)`,
  ];
  if (t.ipRange) {
    ddl.push(`CREATE INDEX IF NOT EXISTS ${quoteIdent(`${bare(t.ipRange)}_start_host_idx`)} ON ${qualified(t.ipRange)} ((CAST(HOST(start_address) AS inet)))`);
  }
  return ddl;
}
