import { type Sql, sql, raw } from '@inventory/filtering';
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
        ${familyColumns(p)}, ${p} AS p, ${net} AS pn, masklen(${p}) AS outlen`;
}

/** Fine blocks one step of the dense search reads at most: more when more addresses are wanted. */
const windowBlocks = (need: number) => Math.min(16, Math.max(1, Math.ceil(need / 16)));

/**
 * The free addresses of a prefix through the block-usage summary: from a cursor (the domain's
 * first address), skip the IP ranges holding the cursor (end to end, one index probe each), then the full /16s (one ordered read of
 * the coarse rows from the cursor's), then the full /24s of the first /16 that is not full (at
 * most 256 rows), and read the addresses of the window that follows (a few /24s): its free
 * addresses are the window minus those hosts and the ranges. Each step is one statement that
 * returns the free addresses it found and the next cursor; the steps stop once `count` are found
 * or the domain ends. Its cost depends on the blocks that are not full before the answer, not on
 * the used addresses before it.
 */
async function densePrefixIps(q: QueryRunner, o: PrefixIpsQuery, usage: UsageTable): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | null = null;
  for (;;) {
    const [row] = await q.query(denseStep(o, usage, cursor, o.count - out.length));
    out.push(...((row?.addresses as string[] | undefined) ?? []));
    const next = row?.next as string | null | undefined;
    if (out.length >= o.count || next === null || next === undefined) return out.slice(0, o.count);
    cursor = next;
  }
}

/**
 * The first block of length `len` at or after the block `from` (an inet with that length) whose
 * summary row says fewer than `size` hosts are used (no row: none), among blocks up to the host
 * `upto`; null when every one up to `upto` is full. Reads the consecutive full rows in key order
 * and stops at the first one that is missing or not full.
 */
function firstNotFull(u: UsageTable, len: Sql, from: Sql, upto: Sql, size: number, mx: Sql): Sql {
  const t = tableName(u.table);
  const where = sql`o.scope = ${u.scope}::bigint AND o.len = ${len} AND o.block >= ${from} AND o.block <= ${upto}`;
  return sql`coalesce(
    (SELECT x.pos FROM (
       SELECT o.block, o.used, ${from} + (row_number() OVER (ORDER BY o.block) - 1) * ${size}::bigint AS pos
         FROM ${t} o WHERE ${where} ORDER BY o.block) x
      WHERE x.block <> x.pos OR x.used < ${size}::int LIMIT 1),
    (SELECT CASE WHEN m.last IS NULL THEN ${from}
                 WHEN set_masklen(broadcast(m.last), ${mx}) < ${upto} THEN m.last::inet + ${size}::bigint END
       FROM (SELECT max(o.block) AS last FROM ${t} o WHERE ${where}) m))`;
}

/** One step of `densePrefixIps`: a row of `next` (host text, or null at the end) and `addresses`. */
function denseStep(o: PrefixIpsQuery, u: UsageTable, cursor: string | null, need: number): Sql {
  const a = o.addresses;
  const host = hostOf(sql`t.${column(a.column ?? 'address')}`);
  const aWhere = a.where ? sql` AND (${a.where})` : raw('');
  const r = o.ranges;
  const rs = r ? hostOf(sql`r.${column(r.startColumn ?? 'start_address')}`) : raw('');
  const re = r ? hostOf(sql`r.${column(r.endColumn ?? 'end_address')}`) : raw('');
  const rWhere = r?.where ? sql` AND (${r.where})` : raw('');
  const inRanges = (cond: Sql) => (r ? sql`SELECT ${rs} AS lo, ${re} AS hi FROM ${tableName(r.table)} r WHERE ${cond} AND ${rs} <<= n.p AND ${re} <<= n.p${rWhere}` : sql`SELECT NULL::inet AS lo, NULL::inet AS hi WHERE false`);
  const span = windowBlocks(need) * FINE;
  // the cursor moved past the ranges that hold it, end to end (the range that starts last at or before it, in the start's index order)
  const covering = r
    ? sql`SELECT ${re} AS hi FROM ${tableName(r.table)} r WHERE ${rs} <= sk.x AND ${rs} >= d.pn AND ${rs} <<= d.p AND ${re} <<= d.p${rWhere} ORDER BY ${rs} DESC LIMIT 1`
    : sql`SELECT NULL::inet AS hi WHERE false`;
  return sql`WITH RECURSIVE d AS (
  SELECT d0.*, coalesce(${cursor}::inet, d0.f) AS c0 FROM (SELECT ${prefixDomain(o)}) d0 WHERE d0.f <= d0.l
), sk AS (
  SELECT d.c0 AS x, 0 AS i FROM d
  UNION ALL
  SELECT CASE WHEN cr.hi < d.l THEN cr.hi + 1 END, sk.i + 1
    FROM sk CROSS JOIN d CROSS JOIN LATERAL (${covering}) cr WHERE sk.x IS NOT NULL AND cr.hi >= sk.x
), k1 AS MATERIALIZED (
  SELECT n.*, (SELECT sk.x FROM sk ORDER BY sk.i DESC LIMIT 1) AS c FROM d n
), k2 AS MATERIALIZED (
  SELECT k.*, CASE WHEN k.c IS NOT NULL THEN ${firstNotFull(u, sql`(k.mx - 16)`, sql`network(set_masklen(k.c, k.mx - 16))::inet`, sql`k.l`, COARSE, sql`k.mx`)} END AS p16 FROM k1 k
), k3 AS MATERIALIZED (
  SELECT k.*, CASE WHEN k.p16 IS NOT NULL THEN greatest(k.c, set_masklen(k.p16, k.mx)) END AS s1,
         CASE WHEN k.p16 IS NOT NULL THEN least(k.l, set_masklen(broadcast(k.p16), k.mx)) END AS upto FROM k2 k
), k4 AS MATERIALIZED (
  SELECT k.*, CASE WHEN k.s1 <= k.upto THEN ${firstNotFull(u, sql`(k.mx - 8)`, sql`network(set_masklen(k.s1, k.mx - 8))::inet`, sql`k.upto`, FINE, sql`k.mx`)} END AS p24 FROM k3 k
), k5 AS MATERIALIZED (
  SELECT k.*, CASE WHEN k.p24 IS NOT NULL THEN greatest(k.s1, set_masklen(k.p24, k.mx)) END AS lo,
         CASE WHEN k.p24 IS NULL THEN NULL WHEN k.upto - set_masklen(k.p24, k.mx) < ${span}::bigint THEN k.upto ELSE set_masklen(k.p24, k.mx) + ${span - 1}::bigint END AS hi
    FROM k4 k
), n AS (
  SELECT k.*, CASE WHEN k.p16 IS NULL OR k.s1 > k.upto THEN NULL
                   WHEN k.p24 IS NULL THEN CASE WHEN k.upto < k.l THEN k.upto + 1 END
                   WHEN k.hi < k.l THEN k.hi + 1 END AS nxt
    FROM k5 k
), occ AS (
  SELECT o.h FROM n CROSS JOIN LATERAL (SELECT ${host} AS h FROM ${tableName(a.table)} t WHERE ${host} >= n.lo AND ${host} <= n.hi${aWhere}) o WHERE n.lo IS NOT NULL
), rw AS (
  SELECT x.lo, x.hi FROM n CROSS JOIN LATERAL (${inRanges(sql`${rs} >= n.pn AND ${rs} <= n.hi AND ${re} >= n.lo`)}) x WHERE n.lo IS NOT NULL
), fr AS (
  SELECT n.lo + i AS x FROM n CROSS JOIN generate_series(0::bigint, n.hi - n.lo) AS i
   WHERE n.lo IS NOT NULL AND NOT EXISTS (SELECT 1 FROM occ WHERE occ.h = n.lo + i) AND NOT EXISTS (SELECT 1 FROM rw WHERE n.lo + i BETWEEN rw.lo AND rw.hi)
   ORDER BY i LIMIT ${need}::bigint
)
SELECT (SELECT host(n.nxt) FROM n) AS next, ARRAY(SELECT host(fr.x) || '/' || n.outlen FROM fr CROSS JOIN n ORDER BY fr.x) AS addresses`;
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
