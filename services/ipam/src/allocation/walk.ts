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
 * One chunk of occupied intervals, in ascending order of their first address, starting at the
 * walk's position: a SELECT of `lo`, `hi` (inet hosts, `lo <= hi`, inside `[w.w_c, b.l]`) limited
 * to `limit` rows. It may read `w.w_c` (the first address of this window), `w.w_cur` (the
 * walk's cursor) and `b.*`. It must read an index in order: that is what makes the search cheap.
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
   * already allocated by this request): a SELECT of `lo`, `hi` clipped to the window `[c, e]`
   * (inet expressions), or null.
   */
  extra?: (c: Sql, e: Sql) => Sql;
  /** Weight of a gap `[lo, hi]` (numeric expression): the walk stops once the weights reach `need`. */
  weight: (lo: Sql, hi: Sql) => Sql;
  need: Sql;
}

/** First chunk size; each further chunk doubles it, up to 256 times. */
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
 * gaps are found with a running `max(hi)` over the intervals sorted by `lo`, plus a sentinel at `e`.
 * No address arithmetic can overflow: `x + 1` only where `x < e`, `x - 1` only where `x > c`.
 */
export function walk(o: WalkOptions): Sql {
  const K = sql`(${raw(String(FIRST_CHUNK))} << least(w.w_step, 8))`;
  const extra = o.extra ? sql` UNION ALL SELECT x.lo, x.hi, false FROM (${o.extra(sql`w.w_c`, sql`k.e`)}) x` : raw('');
  return sql`RECURSIVE b AS (${o.bounds.select}),
walk (w_step, w_c, w_cur, w_final, w_found, w_lo, w_hi, w_n) AS (
  SELECT 0, b.f, ${o.firstCursor}, false, 0::numeric, NULL::inet[], NULL::inet[], NULL::numeric[] FROM b WHERE b.f <= b.l
  UNION ALL
  SELECT w.w_step + 1, ch.next_c, ch.next_cur, ch.final, w.w_found + ch.found, ch.los, ch.his, ch.ns
  FROM walk w CROSS JOIN b CROSS JOIN LATERAL (
    SELECT k.final,
           CASE WHEN k.final THEN NULL ELSE k.e + 1 END AS next_c,
           CASE WHEN k.final THEN NULL ELSE ${o.nextCursor(sql`k.e`)} END AS next_cur,
           coalesce(sum(g.n), 0)::numeric AS found,
           array_agg(g.lo ORDER BY g.lo) FILTER (WHERE g.lo IS NOT NULL) AS los,
           array_agg(g.hi ORDER BY g.lo) FILTER (WHERE g.lo IS NOT NULL) AS his,
           array_agg(g.n ORDER BY g.lo) FILTER (WHERE g.lo IS NOT NULL) AS ns
    FROM (
      SELECT count(*) < ${K} OR coalesce(max(o.hi) >= b.l, true) AS final,
             CASE WHEN count(*) < ${K} OR coalesce(max(o.hi) >= b.l, true) THEN b.l ELSE max(o.hi) END AS e,
             array_agg(o.lo) AS los, array_agg(o.hi) AS his
      FROM (${o.chunk(K)}) o
    ) k
    LEFT JOIN LATERAL (
      SELECT x.lo, x.hi, ${o.weight(sql`x.lo`, sql`x.hi`)}::numeric AS n
      FROM (
        SELECT CASE WHEN r.prev IS NULL THEN w.w_c WHEN r.prev >= k.e THEN NULL ELSE r.prev + 1 END AS lo,
               CASE WHEN r.sentinel THEN k.e WHEN r.lo > w.w_c THEN r.lo - 1 END AS hi
        FROM (
          SELECT u.lo, u.sentinel,
                 max(u.hi) OVER (ORDER BY u.lo, u.sentinel ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev
          FROM (
            SELECT t.lo, t.hi, false AS sentinel FROM unnest(k.los, k.his) AS t(lo, hi) WHERE t.lo IS NOT NULL${extra}
            UNION ALL SELECT k.e, k.e, true
          ) u
        ) r
      ) x
      WHERE x.lo IS NOT NULL AND x.hi IS NOT NULL AND x.lo <= x.hi
    ) g ON true
    GROUP BY k.final, k.e
  ) ch
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
