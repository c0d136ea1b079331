import { type Sql, sql, raw } from '@inventory/filtering';
import { tableName, hostOf } from './walk';

/**
 * The block-usage summary (docs/decisions/019-ip-index.md, "Dense parents"): for each scope and
 * each aligned block of two sizes — IPv4 /16 and /24, IPv6 /112 and /120, i.e. 65,536 and 256
 * addresses — the number of DISTINCT hosts of IP addresses inside it. A scope is a VRF id,
 * `GLOBAL_TABLE` (addresses without a VRF) or `ALL_VRFS` (every address whatever its VRF: what a
 * global container's free addresses exclude, spec §4.2). Blocks with no host have no row.
 *
 * The table: `scope bigint, len smallint, block cidr, used integer, PRIMARY KEY (scope, len, block)`
 * (`len` = `masklen(block)`, so one level of one scope is a contiguous stretch of the key).
 * The free-address search skips a full /16 in one index probe and a run of full /24s in one
 * ordered read of at most 256 rows, then reads only the addresses of one /24.
 */
export interface UsageTable {
  /** e.g. `ipam.ip_block_usage` */
  table: string;
  /** The scope the search's addresses are counted in (`usageScope`). */
  scope: number;
}

/** The scope of addresses without a VRF. */
export const GLOBAL_TABLE = 0;
/** The scope of every address, whatever its VRF (a global container's children). */
export const ALL_VRFS = -1;

/** The scope of a search: a VRF's, the global table's, or every VRF's (a global container). */
export function usageScope(vrfId: number | null, allVrfs = false): number {
  if (allVrfs) return ALL_VRFS;
  return vrfId === null ? GLOBAL_TABLE : vrfId;
}

/** Addresses in a fine block (256), in a coarse one (65,536). */
export const FINE = 256;
export const COARSE = 65536;

const mxOf = (x: Sql) => sql`CASE family(${x}) WHEN 4 THEN 32 ELSE 128 END`;

export interface UsageChange {
  /** Rows of the address table whose blocks to recompute, as they are now (created, updated). */
  ids?: number[];
  /** Places the addresses were before (updated rows as they were): VRF and address. */
  before?: { vrf: number | null; address: string }[];
  /** Rows not to count (about to be deleted in the same transaction). */
  exclude?: number[];
}

/**
 * One statement that brings the summary up to date for the blocks a write touched: the /24
 * (/120) blocks of every old and new place, in the address's VRF scope and in `ALL_VRFS`,
 * counted again from the address table (distinct hosts, by the host index, at most 256 hosts
 * each), and their /16 (/112) blocks as the sum of their /24 rows. Empty blocks lose their row.
 * Null when nothing was touched. The caller holds the address lock (every address write does).
 */
export function refreshBlockUsage(t: { usage: string; addresses: string }, c: UsageChange): Sql | null {
  const ids = c.ids ?? [];
  const before = c.before ?? [];
  if (!ids.length && !before.length) return null;
  const u = tableName(t.usage);
  const a = tableName(t.addresses);
  const host = hostOf(sql`a.address`);
  // the rows to leave out, hashed once (an array test per row would cost rows × array length)
  const exclude = c.exclude?.length ? sql` AND NOT EXISTS (SELECT 1 FROM ex WHERE ex.id = a.id)` : raw('');
  return sql`WITH ex AS MATERIALIZED (
  SELECT DISTINCT x.id FROM unnest(${c.exclude ?? []}::bigint[]) AS x(id)
), pts AS (
  SELECT a.vrf_id::bigint AS vrf_id, ${host} AS h FROM ${a} a WHERE a.id = ANY(${ids}::bigint[])
  UNION ALL
  SELECT x.vrf_id, ${hostOf(sql`x.address`)} FROM unnest(${before.map((b) => b.vrf)}::bigint[], ${before.map((b) => b.address)}::inet[]) AS x(vrf_id, address)
), fb AS (
  SELECT DISTINCT s.scope, network(set_masklen(p.h, ${mxOf(sql`p.h`)} - 8)) AS block
    FROM pts p CROSS JOIN LATERAL (VALUES (coalesce(p.vrf_id, ${GLOBAL_TABLE}::bigint)), (${ALL_VRFS}::bigint)) AS s(scope)
), fine AS (
  SELECT fb.scope, masklen(fb.block) AS len, fb.block,
         (SELECT count(DISTINCT ${host}) FROM ${a} a
           WHERE ${host} >= set_masklen(fb.block::inet, ${mxOf(sql`fb.block`)}) AND ${host} <= set_masklen(broadcast(fb.block), ${mxOf(sql`fb.block`)})
             AND (fb.scope = ${ALL_VRFS}::bigint OR coalesce(a.vrf_id::bigint, ${GLOBAL_TABLE}::bigint) = fb.scope)${exclude})::int AS used
    FROM fb
), coarse AS (
  SELECT g.scope, g.len, g.block,
         (g.used + coalesce((SELECT sum(o.used) FROM ${u} o
            WHERE o.scope = g.scope AND o.len = g.len + 8 AND o.block >= g.block AND o.block <= set_masklen(broadcast(g.block), ${mxOf(sql`g.block`)})
              AND NOT (o.block = ANY(g.blocks))), 0))::int AS used
    FROM (SELECT f.scope, f.len - 8 AS len, network(set_masklen(f.block, f.len - 8)) AS block, sum(f.used) AS used, array_agg(f.block) AS blocks
            FROM fine f GROUP BY 1, 2, 3) g
), nr AS (
  SELECT scope, len, block, used FROM fine UNION ALL SELECT scope, len, block, used FROM coarse
), gone AS (
  DELETE FROM ${u} o USING nr WHERE o.scope = nr.scope AND o.len = nr.len AND o.block = nr.block AND nr.used = 0
)
INSERT INTO ${u} (scope, len, block, used) SELECT scope, len, block, used FROM nr WHERE used > 0
ON CONFLICT (scope, len, block) DO UPDATE SET used = EXCLUDED.used`;
}

/**
 * The whole summary computed from the address table (what a migration fills an empty table
 * with, and what the tests compare the maintained one with): rows of `scope`, `len`, `block`,
 * `used`, in key order.
 */
export function blockUsageFromScratch(addresses: string): Sql {
  const a = tableName(addresses);
  return sql`WITH h AS (
  SELECT DISTINCT coalesce(a.vrf_id::bigint, ${GLOBAL_TABLE}::bigint) AS scope, ${hostOf(sql`a.address`)} AS h FROM ${a} a
  UNION
  SELECT ${ALL_VRFS}::bigint, ${hostOf(sql`a.address`)} FROM ${a} a
), lv AS (
  SELECT h.scope, network(set_masklen(h.h, ${mxOf(sql`h.h`)} - d.bits)) AS block FROM h CROSS JOIN (VALUES (8), (16)) AS d(bits)
)
SELECT scope, masklen(block) AS len, block, count(*)::int AS used FROM lv GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`;
}
