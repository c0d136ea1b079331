import { type Sql, sql, raw } from '@inventory/filtering';
import { type QueryRunner, walk, familyColumns, tableName, column, isNonNegativeInteger } from './walk';

/**
 * Occupied prefixes: rows of `table` whose cidr `column` (default `prefix`) is a child prefix,
 * filtered by `where` (a predicate on the table's columns: the parent's VRF — spec §4.1 counts only
 * prefixes of the parent's VRF, also for a global container).
 *
 * The search reads the children in `cidr` order bounded by the parent
 * (`prefix > parent AND prefix <= last address`): it needs a btree index on the column
 * (docs/decisions/019-ip-index.md).
 */
export interface PrefixTable {
  table: string;
  column?: string;
  where?: Sql;
}

export interface PrefixQuery {
  /** The parent prefix (CIDR text, host bits zero). */
  prefix: string;
  prefixes: PrefixTable;
}

/** Blocks of the parent's free space, as the CTE pieces the walk needs. */
function prefixWalk(o: PrefixQuery, taken: string[], weight: (lo: Sql, hi: Sql) => Sql, need: Sql): Sql {
  const p = sql`${o.prefix}::cidr`;
  const col = sql`t.${column(o.prefixes.column ?? 'prefix')}`;
  const where = o.prefixes.where ? sql` AND (${o.prefixes.where})` : raw('');
  return walk({
    bounds: {
      select: sql`SELECT set_masklen(${p}::inet, CASE family(${p}) WHEN 4 THEN 32 ELSE 128 END) AS f,
        set_masklen(broadcast(${p}), CASE family(${p}) WHEN 4 THEN 32 ELSE 128 END) AS l,
        ${familyColumns(p)}, ${p} AS p, ${p}::inet AS p_inet`,
    },
    // children follow the parent in cidr order; after a chunk, those after its last address
    firstCursor: sql`b.p_inet`,
    nextCursor: (e) => e,
    chunk: (limit) => sql`SELECT s.c AS k, set_masklen(s.c::inet, b.mx) AS lo, set_masklen(broadcast(s.c), b.mx) AS hi
      FROM (SELECT ${col} AS c FROM ${tableName(o.prefixes.table)} t WHERE ${col} > w.w_cur AND ${col} <= b.l${where} ORDER BY ${col} LIMIT ${limit}) s`,
    extra:
      taken.length === 0
        ? undefined
        : (c, e) => sql`SELECT x.c AS k, greatest(set_masklen(x.c::inet, b.mx), ${c}) AS lo, least(set_masklen(broadcast(x.c), b.mx), ${e}) AS hi
            FROM unnest(${taken}::cidr[]) AS x(c) WHERE set_masklen(broadcast(x.c), b.mx) >= ${c} AND set_masklen(x.c::inet, b.mx) <= ${e}`,
    weight,
    need,
  });
}

/**
 * The minimal list of CIDR blocks covering the gap `[g.lo, g.hi]` (columns `block` cidr), computed
 * from bit positions only (no sizes, so IPv6 gaps of any size): with `p` the common prefix length
 * of lo and hi, a gap that is not one whole block splits at the middle of `lo/p`; the left part
 * `[lo, …]` holds the block at lo of its alignment and, for each longer length `m`, a block after
 * lo's `/m` block when lo lies in the lower half of its `/(m-1)`; the right part mirrors it with hi.
 */
const DECOMPOSE = `
  CROSS JOIN LATERAL (SELECT inet_merge(g.lo, g.hi) AS m) mm
  CROSS JOIN LATERAL (
    SELECT masklen(mm.m) AS p,
           set_masklen(mm.m::inet, b.mx) = g.lo AND set_masklen(broadcast(mm.m), b.mx) = g.hi AS whole,
           CASE WHEN g.lo = b.z THEN 0 ELSE masklen(inet_merge(g.lo - 1, g.lo)) + 1 END AS mtz,
           CASE WHEN g.hi = b.top THEN 0 ELSE masklen(inet_merge(g.hi, g.hi + 1)) + 1 END AS mto
  ) pp
  CROSS JOIN LATERAL (
    SELECT mm.m AS block WHERE pp.whole
    UNION ALL
    SELECT network(set_masklen(g.lo, greatest(pp.mtz, pp.p + 1))) WHERE NOT pp.whole
    UNION ALL
    SELECT network(set_masklen(broadcast(set_masklen(g.lo, m)) + 1, m))
    FROM generate_series(pp.p + 2, greatest(pp.mtz, pp.p + 1) - 1) AS m
    WHERE NOT pp.whole AND set_masklen(network(set_masklen(g.lo, m)), b.mx) = set_masklen(network(set_masklen(g.lo, m - 1)), b.mx)
    UNION ALL
    SELECT network(set_masklen(g.hi, greatest(pp.mto, pp.p + 1))) WHERE NOT pp.whole
    UNION ALL
    SELECT network(network(set_masklen(g.hi, m)) - 1)
    FROM generate_series(pp.p + 2, greatest(pp.mto, pp.p + 1) - 1) AS m
    WHERE NOT pp.whole AND set_masklen(network(set_masklen(g.hi, m)), b.mx) <> set_masklen(network(set_masklen(g.hi, m - 1)), b.mx)
  ) d`;

/**
 * `/api/ipam/prefixes/{id}/available-prefixes/` GET (spec §4.1): the parent minus every child
 * prefix strictly inside it (the caller's `where`: same VRF as the parent), as the minimal list
 * of CIDR blocks, ascending (`192.0.2.0/24` with `192.0.2.64/26` and `192.0.2.192/27` →
 * `192.0.2.0/26`, `192.0.2.128/26`, `192.0.2.224/27`).
 */
export async function availablePrefixes(q: QueryRunner, o: PrefixQuery): Promise<string[]> {
  const search = prefixWalk(o, [], () => sql`0`, sql`1`);
  const rows = await q.query(sql`WITH ${search}
SELECT d.block::text AS prefix FROM gaps g CROSS JOIN b ${raw(DECOMPOSE)}
ORDER BY d.block`);
  return rows.map((r) => r.prefix as string);
}

/** First address of `[lo, hi]` aligned to a `/len` block that fits in it, or NULL. */
function alignedStart(lo: Sql, hi: Sql, len: Sql): Sql {
  const bcast = sql`set_masklen(broadcast(set_masklen(${lo}, ${len})), b.mx)`;
  const a = sql`CASE WHEN set_masklen(network(set_masklen(${lo}, ${len})), b.mx) = ${lo} THEN ${lo}
    WHEN ${bcast} >= ${hi} THEN NULL ELSE ${bcast} + 1 END`;
  return sql`CASE WHEN set_masklen(broadcast(set_masklen(${a}, ${len})), b.mx) <= ${hi} THEN ${a} END`;
}

/**
 * `/api/ipam/prefixes/{id}/available-prefixes/` POST (spec §4.1): one block per requested length,
 * in request order, from one working copy of the free set: the first free block (lowest address)
 * whose mask length is at most the requested one gives `<its network>/<length>` (that is the
 * first `/length`-aligned block lying in a gap). Null when some item finds no block (→ 409): a
 * length shorter than the parent's, or no room. Lengths must be 0…32 (IPv4) or 0…128 (IPv6);
 * the caller checks them against the parent's family (a longer one is a RangeError here).
 *
 * The caller holds the allocation lock (advisory lock 100100) around this and the inserts.
 */
export async function allocatePrefixes(q: QueryRunner, o: PrefixQuery & { lengths: number[] }): Promise<string[] | null> {
  const taken: string[] = [];
  for (const length of o.lengths) {
    if (!isNonNegativeInteger(length) || length > 128) throw new RangeError('prefix_length must be an integer 0…128');
    const len = sql`least(${length}::int, b.mx)`;
    const search = prefixWalk(o, taken, (lo, hi) => sql`CASE WHEN ${alignedStart(lo, hi, len)} IS NULL THEN 0 ELSE 1 END`, sql`1`);
    const rows = await q.query(sql`WITH ${search}
SELECT network(set_masklen(x.a, ${len}))::text AS prefix, ${length}::int > b.mx AS too_long
FROM b LEFT JOIN LATERAL (SELECT ${alignedStart(sql`g.lo`, sql`g.hi`, len)} AS a, g.ord FROM gaps g) x ON x.a IS NOT NULL
ORDER BY x.ord LIMIT 1`);
    if (rows.length === 0) return null; // no bounds row: cannot happen for a valid cidr
    if (rows[0].too_long) throw new RangeError(`prefix_length ${length} is longer than the parent's family allows`);
    if (rows[0].prefix === null) return null;
    taken.push(rows[0].prefix as string);
  }
  return taken;
}
