import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): the block-usage
 * summary of IP addresses (docs/decisions/019-ip-index.md, "Dense parents"):
 * distinct hosts per IPv4 /16 and /24 (IPv6 /112 and /120), per VRF (0: the
 * global table) and across every VRF (-1), filled from the addresses already
 * stored; and the btree on the host of an address that both its upkeep and
 * the free-address search read (IF NOT EXISTS: the allocation indexes may
 * come first). Never edit it: add a migration.
 */
export function ipBlockUsageStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE INDEX IF NOT EXISTS "ip_address_host_idx" ON ${s}."ip_address" ((CAST(HOST(address) AS inet)))`,
    `CREATE TABLE ${s}."ip_block_usage" ("scope" BIGINT NOT NULL, "len" SMALLINT NOT NULL, "block" CIDR NOT NULL, "used" INTEGER NOT NULL, PRIMARY KEY ("scope", "len", "block"))`,
    `INSERT INTO ${s}."ip_block_usage" ("scope", "len", "block", "used")
     WITH h AS (
       SELECT DISTINCT COALESCE(a.vrf_id, 0) AS scope, CAST(HOST(a.address) AS inet) AS h FROM ${s}."ip_address" a
       UNION
       SELECT -1, CAST(HOST(a.address) AS inet) FROM ${s}."ip_address" a
     ), lv AS (
       SELECT h.scope, network(set_masklen(h.h, CASE family(h.h) WHEN 4 THEN 32 ELSE 128 END - d.bits)) AS block
         FROM h CROSS JOIN (VALUES (8), (16)) AS d(bits)
     )
     SELECT scope, masklen(block), block, count(*) FROM lv GROUP BY scope, block`,
  ];
}

export const ipBlockUsage: Migration = {
  name: '0007_ip_block_usage',
  up: ({ qi, schema }) => runStatements(qi, ipBlockUsageStatements(schema)),
};
