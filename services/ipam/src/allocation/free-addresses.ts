import { type Sql, sql, raw, prepared } from '@inventory/filtering';
import { type QueryRunner, walk, familyColumns, hostOf, tableName, column, isNonNegativeInteger } from './walk';
import { type UsageTable, COARSE, FINE } from './usage';

/**
 * Occupied IP addresses: rows of `table` whose inet `column` (default `address`) is an address in
 * use, filtered by `where` (a predicate on the table's columns, e.g. the VRF; absent = all rows).
 *
 * The search reads them by host, `CAST(HOST(address) AS inet)`, in ascending order and bounded by
 * the searched block: it needs a btree index on that expression,
 * `CREATE INDEX … ON ipam.ip_address ((CAST(HOST(address) AS inet)))` (docs/decisions/019-ip-index.md).
 */
export interface AddressTable {
  table: string;
  column?: string;
  where?: Sql;
}

/** Occupied IP ranges: inet `start`/`end` columns (default `start_address`/`end_address`), filtered by `where`. */
export interface RangeTable {
  table: string;
  startColumn?: string;
  endColumn?: string;
  where?: Sql;
}

export interface PrefixIpsQuery {
  /** The parent prefix (CIDR text, host bits zero). */
  prefix: string;
  isPool?: boolean;
  markUtilized?: boolean;
  /** Its child IP addresses (same VRF; for a global container, every VRF: the caller's `where`). */
  addresses: AddressTable;
  /** Its IP ranges (same VRF, `where`); only ranges whose both ends lie inside the prefix count. */
  ranges?: RangeTable;
  /** How many addresses at most (GET `limit`; POST: the number of items). */
  count: number;
  /**
   * The block-usage summary of the same addresses (its scope counts exactly the rows `addresses`
   * selects): full blocks are skipped without reading their addresses. Absent: the plain walk.
   */
  usage?: UsageTable;
}

export interface RangeIpsQuery {
  /** The range's `start_address` and `end_address` (inet text with their mask). */
  start: string;
  end: string;
  /** IP addresses of the range's VRF (`where`); those with `start <= address <= end` in inet order count. */
  addresses: AddressTable;
  count: number;
}

/** Largest count a search accepts (an IPv4 `z + count` must not overflow). */
export const MAX_COUNT = 2 ** 31 - 1;

function checkCount(count: number): void {
  if (!isNonNegativeInteger(count) || count > MAX_COUNT) throw new RangeError(`count must be an integer 0…${MAX_COUNT}`);
}

/** Hosts of `AddressTable` rows in `[w.w_c, b.l]`, ascending, `LIMIT limit` (plus `filter` on the row `t`). */
function addressChunk(a: AddressTable, filter: Sql | null) {
  const host = hostOf(sql`t.${column(a.column ?? 'address')}`);
  const where = [a.where ? sql` AND (${a.where})` : raw(''), filter ? sql` AND (${filter})` : raw('')];
  return (limit: Sql) =>
    sql`SELECT s.h AS k, s.h AS lo, s.h AS hi FROM (SELECT ${host} AS h FROM ${tableName(a.table)} t WHERE ${host} >= w.w_c AND ${host} <= b.l${where[0]}${where[1]} ORDER BY ${host} LIMIT ${limit}) s`;
}

/** Ranges of `RangeTable` inside `b.p`, clipped to `[c, e]` (bounded on the start's host: `b.pn` is the prefix's first address). */
function rangeExtra(r: RangeTable) {
  const start = hostOf(sql`r.${column(r.startColumn ?? 'start_address')}`);
  const end = hostOf(sql`r.${column(r.endColumn ?? 'end_address')}`);
  const where = r.where ? sql` AND (${r.where})` : raw('');
  return (c: Sql, e: Sql) =>
    sql`SELECT greatest(${start}, ${c}) AS k, greatest(${start}, ${c}) AS lo, least(${end}, ${e}) AS hi FROM ${tableName(r.table)} r WHERE ${start} >= b.pn AND ${start} <= ${e} AND ${end} >= ${c} AND ${start} <<= b.p AND ${end} <<= b.p${where}`;
}

/** A gap's size, capped at `n` without computing `hi - lo` when it could exceed a bigint (IPv6). */
function cappedSize(n: Sql) {
  return (lo: Sql, hi: Sql) =>
    sql`CASE WHEN ${hi} < b.z + ${n} THEN ${hi} - ${lo} + 1 WHEN ${hi} - ${n} >= ${lo} THEN ${n} ELSE ${hi} - ${lo} + 1 END`;
}

/** The first `count` addresses of the gaps, as `<host>/<b.outlen>` text. */
function firstAddresses(search: Sql, n: Sql): Sql {
  return sql`WITH ${search},
cum AS (SELECT lo, n, ord, sum(n) OVER (ORDER BY ord) - n AS before FROM gaps)
SELECT host(c.lo + s.i) || '/' || b.outlen AS address
FROM cum c CROSS JOIN b CROSS JOIN LATERAL generate_series(0::bigint, (least(c.n, ${n} - c.before) - 1)::bigint) AS s(i)
WHERE c.before < ${n}
ORDER BY c.ord, s.i`;
}

/**
 * `/api/ipam/prefixes/{id}/available-ips/` (spec §4.2): the first `count` free addresses of a prefix,
 * ascending, as `<address>/<prefix length>`. Free = every address of the prefix minus the hosts of
 * its child IP addresses and every address of its child ranges; `markUtilized` → none; a pool,
 * an IPv4 /31–/32 or an IPv6 /127–/128 uses every address; otherwise IPv4 loses its network and
 * broadcast addresses and IPv6 its first (subnet-router anycast) address.
 */
export async function availablePrefixIps(q: QueryRunner, o: PrefixIpsQuery): Promise<string[]> {
  checkCount(o.count);
  if (o.markUtilized || o.count === 0) return [];
  if (o.usage) return densePrefixIps(q, o, o.usage);
  const n = sql`${o.count}::bigint`;
  const search = walk({
    bounds: { select: sql`SELECT ${prefixDomain(o)}` },
    firstCursor: sql`b.f`,
    nextCursor: (e) => sql`${e} + 1`,
    chunk: addressChunk(o.addresses, null),
    extra: o.ranges ? rangeExtra(o.ranges) : undefined,
    weight: cappedSize(n),
    need: n,
  });
  const rows = await q.query(firstAddresses(search, n));
  return rows.map((r) => r.address as string);
}

/**
 * The searched addresses of a prefix as bounds columns: `f`, `l` (first and last usable host),
 * `mx`, `z`, `top`, `p` (the prefix), `pn` (its first address), `outlen` (its length).
 */
function prefixDomain(o: PrefixIpsQuery): Sql {
  const p = sql`${o.prefix}::cidr`;
  const full = sql`(${o.isPool === true} OR (family(${p}) = 4 AND masklen(${p}) >= 31) OR masklen(${p}) >= 127)`;
  const net = sql`set_masklen(${p}::inet, CASE family(${p}) WHEN 4 THEN 32 ELSE 128 END)`;
  const bc = sql`set_masklen(broadcast(${p}), CASE family(${p}) WHEN 4 THEN 32 ELSE 128 END)`;
  return sql`CASE WHEN ${full} THEN ${net} ELSE ${net} + 1 END AS f,
        CASE WHEN ${full} OR family(${p}) = 6 THEN ${bc} ELSE ${bc} - 1 END AS l,
        ${familyColumns(p)}, ${p} AS p, ${net} AS pn, ${bc} AS pb, masklen(${p}) AS outlen`;
}

/**
 * The free addresses of a prefix through the block-usage summary, in one statement: a recursive
 * walk of steps from a cursor (first: the domain's first address). A step either skips the IP
 * range holding the cursor (the one starting last at or before it: one probe of the start's
 * index, so ranges end to end over thousands of empty blocks cost one step each, not one per
 * block), or skips the full /16s from the cursor's (one ordered read of the coarse rows, one row
 * per full /16), then the full /24s of the first /16 that is not full (at most 256 rows), and
 * takes the free addresses of that /24 from the cursor: its addresses minus the hosts stored in
 * it (one ordered read of at most 256 index entries, hashed: 2.5 times faster than a probe per
 * address; the series is a constant 256 rows, so the planner's estimate stays small and never
 * calls for JIT compilation, which costs 200 ms here) and outside the ranges overlapping it. The
 * steps end once `count` addresses are found or the domain ends. The
 * cost depends on the blocks that are not full before the answer, not on the used addresses
 * before it.
 */
async function densePrefixIps(q: QueryRunner, o: PrefixIpsQuery, usage: UsageTable): Promise<string[]> {
  // planning this statement costs twice its execution (2.4 ms against 1 ms on a 99 % used /8): a
  // prepared statement with a generic plan skips it (decision 019, "Dense parents")
  const rows = await q.query(prepared(denseSearch(o, usage), { generic: true }));
  return rows.map((r) => r.address as string);
}

/**
 * The first block of length `len` at or after the block `from` (an inet with that length) whose
 * summary row says fewer than `size` hosts are used (no row: none), among blocks up to the host
 * `upto`; null when every one up to `upto` is full. Reads the consecutive full rows in key order
 * and stops at the first one that is missing or not full. `unusable(block)`: how many unused
 * addresses of the block the search may not hand out anyway (added to its count).
 */
function firstNotFull(u: UsageTable, len: Sql, from: Sql, upto: Sql, size: number, mx: Sql, unusable: (block: Sql) => Sql = () => sql`0`): Sql {
  const t = tableName(u.table);
  const where = sql`o.scope = ${u.scope}::bigint AND o.len = ${len} AND o.block >= ${from} AND o.block <= ${upto}`;
  return sql`coalesce(
    (SELECT x.pos FROM (
       SELECT o.block, o.used, ${from} + (row_number() OVER (ORDER BY o.block) - 1) * ${size}::bigint AS pos
         FROM ${t} o WHERE ${where} ORDER BY o.block) x
      WHERE x.block <> x.pos OR x.used + ${unusable(sql`x.block`)} < ${size}::int LIMIT 1),
    (SELECT CASE WHEN m.last IS NULL THEN ${from}
                 WHEN set_masklen(broadcast(m.last), ${mx}) < ${upto} THEN m.last::inet + ${size}::bigint END
       FROM (SELECT max(o.block) AS last FROM ${t} o WHERE ${where}) m))`;
}

/** The statement of `densePrefixIps`: rows of `address`, ascending. */
function denseSearch(o: PrefixIpsQuery, u: UsageTable): Sql {
  const a = o.addresses;
  const host = hostOf(sql`t.${column(a.column ?? 'address')}`);
  const aWhere = a.where ? sql` AND (${a.where})` : raw('');
  const r = o.ranges;
  const rs = r ? hostOf(sql`r.${column(r.startColumn ?? 'start_address')}`) : raw('');
  const re = r ? hostOf(sql`r.${column(r.endColumn ?? 'end_address')}`) : raw('');
  const rWhere = r?.where ? sql` AND (${r.where})` : raw('');
  const inside = sql`${rs} >= d.pn AND ${rs} <<= d.p AND ${re} <<= d.p${rWhere}`;
  const need = sql`${o.count}::bigint`;
  // the range holding the cursor, if the one that starts last at or before it does
  const holding = r
    ? sql`(SELECT z.hi FROM (SELECT ${re} AS hi FROM ${tableName(r.table)} r WHERE ${rs} <= st.cur AND ${inside} ORDER BY ${rs} DESC LIMIT 1) z WHERE z.hi >= st.cur)`
    : sql`NULL::inet`;
  // the ranges overlapping the window, clipped to it
  const overlapping = r
    ? sql`SELECT array_agg(greatest(${rs}, h.lo)) AS los, array_agg(least(${re}, h.hi)) AS his FROM ${tableName(r.table)} r WHERE ${rs} <= h.hi AND ${re} >= h.lo AND ${inside}`
    : sql`SELECT NULL::inet[] AS los, NULL::inet[] AS his`;
  const unused = (x: Sql) => sql`NOT EXISTS (SELECT 1 FROM ${tableName(a.table)} t WHERE ${host} = ${x}${aWhere})`;
  // the network (and IPv4 broadcast) address outside the domain and unused: a block holding it is
  // full when every other address is used (else the first /24 and /16 of a dense parent never are)
  const unusable = (block: Sql) => sql`(CASE WHEN d.xn AND d.pn <<= ${block} THEN 1 ELSE 0 END + CASE WHEN d.xb AND d.pb <<= ${block} THEN 1 ELSE 0 END)`;
  return sql`WITH RECURSIVE d AS (
  SELECT d0.*, d0.pn < d0.f AND ${unused(sql`d0.pn`)} AS xn, d0.pb > d0.l AND ${unused(sql`d0.pb`)} AS xb
    FROM (SELECT ${prefixDomain(o)}) d0 WHERE d0.f <= d0.l
), st (i, cur, found, xs) AS (
  SELECT 0, d.f, 0::bigint, ARRAY[]::inet[] FROM d
  UNION ALL
  SELECT st.i + 1, e.nxt, st.found + cardinality(e.xs), e.xs
    FROM st CROSS JOIN d
    CROSS JOIN LATERAL (SELECT ${holding} AS rhi OFFSET 0) a
    CROSS JOIN LATERAL (SELECT CASE WHEN a.rhi IS NULL THEN ${firstNotFull(u, sql`(d.mx - 16)`, sql`network(set_masklen(st.cur, d.mx - 16))::inet`, sql`d.l`, COARSE, sql`d.mx`, unusable)} END AS p16 OFFSET 0) b
    CROSS JOIN LATERAL (SELECT CASE WHEN b.p16 IS NOT NULL THEN greatest(st.cur, set_masklen(b.p16, d.mx)) END AS s1,
                               CASE WHEN b.p16 IS NOT NULL THEN least(d.l, set_masklen(broadcast(b.p16), d.mx)) END AS upto OFFSET 0) c
    CROSS JOIN LATERAL (SELECT CASE WHEN c.s1 <= c.upto THEN ${firstNotFull(u, sql`(d.mx - 8)`, sql`network(set_masklen(c.s1, d.mx - 8))::inet`, sql`c.upto`, FINE, sql`d.mx`, unusable)} END AS p24 OFFSET 0) g
    CROSS JOIN LATERAL (SELECT CASE WHEN g.p24 IS NOT NULL THEN greatest(c.s1, set_masklen(g.p24, d.mx)) END AS lo,
                               CASE WHEN g.p24 IS NOT NULL THEN least(c.upto, set_masklen(broadcast(g.p24), d.mx)) END AS hi OFFSET 0) h
    CROSS JOIN LATERAL (${overlapping} OFFSET 0) rw
    CROSS JOIN LATERAL (
      SELECT CASE WHEN h.lo IS NULL THEN ARRAY[]::inet[] ELSE ARRAY(
               SELECT f.x FROM (
                 SELECT h.lo + s.i AS x FROM generate_series(0::bigint, ${FINE - 1}::bigint) AS s(i) WHERE s.i <= h.hi - h.lo
                 EXCEPT
                 SELECT ${host} FROM ${tableName(a.table)} t WHERE ${host} >= h.lo AND ${host} <= h.hi${aWhere}
               ) f
               WHERE NOT EXISTS (SELECT 1 FROM unnest(rw.los, rw.his) AS z(lo, hi) WHERE f.x >= z.lo AND f.x <= z.hi)
               ORDER BY f.x LIMIT ${need} - st.found) END AS xs,
             CASE WHEN a.rhi IS NOT NULL THEN CASE WHEN a.rhi < d.l THEN a.rhi + 1 END
                  WHEN b.p16 IS NULL OR c.s1 > c.upto THEN NULL
                  WHEN g.p24 IS NULL THEN CASE WHEN c.upto < d.l THEN c.upto + 1 END
                  WHEN h.hi < d.l THEN h.hi + 1 END AS nxt
      OFFSET 0) e
   WHERE st.cur IS NOT NULL AND st.found < ${need}
)
SELECT host(u.x) || '/' || d.outlen AS address
  FROM st CROSS JOIN d CROSS JOIN LATERAL unnest(st.xs) WITH ORDINALITY AS u(x, k)
 ORDER BY st.i, u.k
 LIMIT ${need}`;
}

/**
 * `/api/ipam/ip-ranges/{id}/available-ips/` (spec §4.3): the first `count` free addresses from the
 * start host to the end host inclusive, as `<address>/<start's mask length>`. Occupied: hosts of the
 * addresses with `start <= address <= end` in inet order (mask-sensitive, as the reference).
 * No network/broadcast exclusion; the range's `mark_utilized` plays no role.
 */
export async function availableRangeIps(q: QueryRunner, o: RangeIpsQuery): Promise<string[]> {
  checkCount(o.count);
  if (o.count === 0) return [];
  const start = sql`${o.start}::inet`;
  const end = sql`${o.end}::inet`;
  const n = sql`${o.count}::bigint`;
  const col = sql`t.${column(o.addresses.column ?? 'address')}`;
  const search = walk({
    bounds: {
      select: sql`SELECT ${hostOf(start)} AS f, ${hostOf(end)} AS l, ${familyColumns(start)}, masklen(${start}) AS outlen
        WHERE family(${start}) = family(${end})`,
    },
    firstCursor: sql`b.f`,
    nextCursor: (e) => sql`${e} + 1`,
    chunk: addressChunk(o.addresses, sql`${col} >= ${start} AND ${col} <= ${end}`),
    weight: cappedSize(n),
    need: n,
  });
  const rows = await q.query(firstAddresses(search, n));
  return rows.map((r) => r.address as string);
}
