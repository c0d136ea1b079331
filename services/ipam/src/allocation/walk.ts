import { type Sql, raw, sql, quoteIdent } from '@inventory/filtering';

/** What the allocation functions need from a connection, a pool or a transaction (`Db`, `Tx` of @inventory/rest). */
export interface QueryRunner {
  query(statement: Sql): Promise<Record<string, unknown>[]>;
}

/** A schema-qualified table name (`ipam.ip_address`) quoted part by part. Trusted text, never user input. */
export function tableName(name: string): Sql {
  return raw(name.split('.').map(quoteIdent).join('.'));
}

export function column(name: string): Sql {
  return raw(quoteIdent(name));
}

/**
 * The bounds of one search, as columns of the CTE `b` (all inet host values, /32 or /128):
 * `f`, `l` the first and last address of the domain, `z` the family's zero address, `top` its last
 * address, `mx` the family's address length (32 or 128), plus whatever columns the caller adds.
 */
export interface WalkBounds {
  /** `SELECT … AS f, … AS l, … AS z, … AS top, … AS mx, …` (one row; no row = nothing to search). */
  select: Sql;
}

/**
 * One chunk of occupied intervals starting at the walk's position: a SELECT of `k` (the sort key:
 * the indexed expression it is ordered by), `lo`, `hi` (inet hosts, `lo <= hi`, inside
 * `[w.w_c, b.l]`; ordered by `k` means ordered by `lo`, and for nested intervals the outer first),
 * `ORDER BY k LIMIT limit`. It may read `w.w_c` (the first address of this window), `w.w_cur`
 * (the walk's cursor) and `b.*`. It must read an index in order: that is what makes the search cheap.
 */
export type Chunk = (limit: Sql) => Sql;

export interface WalkOptions {
  bounds: WalkBounds;
  /** The cursor of the first chunk (an inet expression over `b`). */
  firstCursor: Sql;
  /** The cursor after a chunk ending (its highest occupied address) at `e`: inet expression of `e`, `b`. */
  nextCursor: (e: Sql) => Sql;
  chunk: Chunk;
  /**
   * More occupied intervals that are not read in chunks (few: IP ranges of a prefix, blocks
   * already allocated by this request): a SELECT of `k` (comparable with the chunk's), `lo`, `hi`
   * clipped to `[c, e]` (the walk passes the window's start and the domain's last address), or
   * null. They may reach past the chunk's end: gaps found beyond it are dropped.
   */
  extra?: (c: Sql, e: Sql) => Sql;
  /** Weight of a gap `[lo, hi]` (numeric expression): the walk stops once the weights reach `need`. */
  weight: (lo: Sql, hi: Sql) => Sql;
  need: Sql;
}

/** First chunk size (rows); each further chunk doubles it, up to 65,536 rows. */
const FIRST_CHUNK = 256;

/**
 * The free gaps of a domain `[f, l]` given occupied intervals, as the CTE `walk` (rows of arrays
 * `w_lo`, `w_hi`, `w_n`, in order of `w_step`) followed by the CTE `gaps` (`lo`, `hi`, `n`, `ord`:
 * one row per gap, ascending).
 *
 * The occupied intervals are read in chunks in index order (an index range scan bounded by the
 * domain, `LIMIT`ed), so the search stops as soon as enough gaps are found: a 99 % used /8 costs
 * what its first used stretch costs. Each chunk is a window `[c, e]` ending on its highest occupied
 * address (so no gap straddles two windows; the last window ends at `l`); inside a window the
 * gap before each interval runs from the highest address before it (a running `max(hi)` in the
 * chunk's index order, no sort) to its start, and the last window adds the gap after the
 * highest occupied address.
 * No address arithmetic can overflow (every `CASE` tests first): `x + 1` only where an address
 * above `x` is in the domain, `x - 1` only where a gap starts below `x`; sizes are never taken
 * (IPv6 gaps exceed a bigint), a gap's weight compares bounds instead (`cappedSize`).
 */
export function walk(o: WalkOptions): Sql {
  const K = sql`(${raw(String(FIRST_CHUNK))} << least(w.w_step, 8))`;
  const extra = o.extra ? sql` UNION ALL SELECT x.k, x.lo, x.hi, true FROM (${o.extra(sql`w.w_c`, sql`b.l`)}) x` : raw('');
  return sql`RECURSIVE b AS (${o.bounds.select}),
walk (w_step, w_c, w_cur, w_final, w_found, w_lo, w_hi, w_n) AS (
  SELECT 0, b.f, ${o.firstCursor}, false, 0::numeric, NULL::inet[], NULL::inet[], NULL::numeric[] FROM b WHERE b.f <= b.l
  UNION ALL
  SELECT w.w_step + 1,
         CASE WHEN ch.final THEN NULL ELSE ch.e + 1 END,
         CASE WHEN ch.final THEN NULL ELSE ${o.nextCursor(sql`ch.e`)} END,
         ch.final,
         w.w_found + ch.found + coalesce(tl.n, 0),
         CASE WHEN tl.lo IS NULL THEN ch.los ELSE ch.los || tl.lo END,
         CASE WHEN tl.lo IS NULL THEN ch.his ELSE ch.his || tl.hi END,
         CASE WHEN tl.lo IS NULL THEN ch.ns ELSE ch.ns || tl.n END
  FROM walk w CROSS JOIN b CROSS JOIN LATERAL (
    SELECT coalesce(bool_or(gr.final), true) AS final,
           coalesce(max(gr.e), b.l) AS e,
           max(gr.mh) AS mh,
           coalesce(sum(gr.n), 0)::numeric AS found,
           array_agg(gr.glo ORDER BY gr.k) FILTER (WHERE gr.glo IS NOT NULL) AS los,
           array_agg(gr.ghi ORDER BY gr.k) FILTER (WHERE gr.glo IS NOT NULL) AS his,
           array_agg(gr.n ORDER BY gr.k) FILTER (WHERE gr.glo IS NOT NULL) AS ns
    FROM (
      SELECT g2.k, g2.final, g2.e, g2.mh, g2.glo, g2.ghi,
             CASE WHEN g2.glo IS NOT NULL THEN ${o.weight(sql`g2.glo`, sql`g2.ghi`)} END::numeric AS n
      FROM (
        SELECT g1.k, g1.final, g1.e, g1.mh, g1.glo, CASE WHEN g1.glo IS NOT NULL THEN g1.lo - 1 END AS ghi
        FROM (
          SELECT s.k, s.lo, s.final, s.e, s.mh,
                 CASE WHEN s.lo > s.e THEN NULL
                      WHEN s.prev IS NULL THEN CASE WHEN s.lo > w.w_c THEN w.w_c END
                      WHEN s.prev >= s.lo THEN NULL
                      WHEN s.prev + 1 < s.lo THEN s.prev + 1 END AS glo
          FROM (
            SELECT s0.k, s0.lo, s0.prev, s0.mh, s0.final, CASE WHEN s0.final THEN b.l ELSE s0.ce END AS e
            FROM (
              SELECT o.k, o.lo, o.mh, o.prev, o.ce, o.n < ${K} OR o.ce IS NULL OR o.ce >= b.l AS final
              FROM (
                SELECT o.k, o.lo,
                       max(o.hi) OVER (ORDER BY o.k ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev,
                       count(*) FILTER (WHERE NOT o.x) OVER () AS n,
                       max(o.hi) FILTER (WHERE NOT o.x) OVER () AS ce,
                       max(o.hi) OVER () AS mh
                FROM (SELECT c.k, c.lo, c.hi, false AS x FROM (${o.chunk(K)}) c${extra}) o
              ) o
              OFFSET 0
            ) s0
          ) s
          OFFSET 0
        ) g1
      ) g2
    ) gr
  ) ch
  LEFT JOIN LATERAL (
    SELECT t.lo, t.hi, ${o.weight(sql`t.lo`, sql`t.hi`)}::numeric AS n
    FROM (SELECT CASE WHEN ch.mh IS NULL THEN w.w_c WHEN ch.mh < b.l THEN ch.mh + 1 END AS lo, b.l AS hi WHERE ch.final) t
    WHERE t.lo IS NOT NULL
  ) tl ON true
  WHERE NOT w.w_final AND w.w_found < ${o.need}
),
gaps AS (
  SELECT g.lo, g.hi, g.n, row_number() OVER (ORDER BY w.w_step, g.i) AS ord
  FROM walk w CROSS JOIN LATERAL unnest(w.w_lo, w.w_hi, w.w_n) WITH ORDINALITY AS g(lo, hi, n, i)
)`;
}

/** Bounds columns common to every search on a network value `net` (an inet/cidr SQL expression). */
export function familyColumns(net: Sql): Sql {
  return sql`CASE family(${net}) WHEN 4 THEN 32 ELSE 128 END AS mx,
    set_masklen(CASE family(${net}) WHEN 4 THEN inet '0.0.0.0' ELSE inet '::' END, CASE family(${net}) WHEN 4 THEN 32 ELSE 128 END) AS z,
    set_masklen(CASE family(${net}) WHEN 4 THEN inet '255.255.255.255' ELSE inet 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff' END, CASE family(${net}) WHEN 4 THEN 32 ELSE 128 END) AS top`;
}

/** A host address of an inet/cidr expression: its address with the full mask (the spec's `CAST(HOST(x) AS inet)`). */
export function hostOf(x: Sql): Sql {
  return sql`CAST(HOST(${x}) AS inet)`;
}

export function isNonNegativeInteger(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}
