import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md), decision 019:
 * the network columns' GiST `inet_ops` indexes (0002) become SP-GiST
 * `inet_ops` ones (containment: `contains`, the parents of a prefix), under
 * the engine's new name `<table>_<column>_spgist`; and the btrees the
 * ordered searches and lists read (what `allocationIndexDdl` gave when this
 * was written: the host of an address, the raw address, the prefix, the host
 * of a range's start). Never edit it; src/migrations/extra-schema.ts
 * declares the btrees for the schema test.
 */
export function ipIndexesStatements(schema: string): string[] {
  const s = `"${schema}"`;
  const network: [table: string, column: string][] = [
    ['aggregate', 'prefix'],
    ['prefix', 'prefix'],
    ['ip_range', 'start_address'],
    ['ip_range', 'end_address'],
    ['ip_address', 'address'],
  ];
  return [
    ...network.map(([table, column]) => `DROP INDEX IF EXISTS ${s}."${table}_${column}_idx"`),
    ...network.map(([table, column]) => `CREATE INDEX "${table}_${column}_spgist" ON ${s}."${table}" USING SPGIST ("${column}" inet_ops)`),
    `CREATE INDEX IF NOT EXISTS "ip_address_host_idx" ON ${s}."ip_address" ((CAST(HOST(address) AS inet)))`,
    `CREATE INDEX IF NOT EXISTS "ip_address_address_idx" ON ${s}."ip_address" (address)`,
    `CREATE INDEX IF NOT EXISTS "prefix_prefix_idx" ON ${s}."prefix" (prefix)`,
    `CREATE INDEX IF NOT EXISTS "ip_range_start_host_idx" ON ${s}."ip_range" ((CAST(HOST(start_address) AS inet)))`,
  ];
}

export const ipIndexes: Migration = {
  name: '0005_ip_indexes',
  up: ({ qi, schema }) => runStatements(qi, ipIndexesStatements(schema)),
};
