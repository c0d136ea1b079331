import { type Sql, sql, raw } from '@inventory/filtering';
import { type QueryRunner, walk, familyColumns, hostOf, tableName, column, isNonNegativeInteger } from './walk';

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
  const p = sql`${o.prefix}::cidr`;
  const full = sql`(${o.isPool === true} OR (family(${p}) = 4 AND masklen(${p}) >= 31) OR masklen(${p}) >= 127)`;
  const net = sql`set_masklen(${p}::inet, CASE family(${p}) WHEN 4 THEN 32 ELSE 128 END)`;
  const bc = sql`set_masklen(broadcast(${p}), CASE family(${p}) WHEN 4 THEN 32 ELSE 128 END)`;
  const n = sql`${o.count}::bigint`;
  const search = walk({
    bounds: {
      select: sql`SELECT CASE WHEN ${full} THEN ${net} ELSE ${net} + 1 END AS f,
        CASE WHEN ${full} OR family(${p}) = 6 THEN ${bc} ELSE ${bc} - 1 END AS l,
        ${familyColumns(p)}, ${p} AS p, ${net} AS pn, masklen(${p}) AS outlen`,
    },
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
