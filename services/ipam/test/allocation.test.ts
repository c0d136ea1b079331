import pg from 'pg';
import { type Sql, render, sql } from '@inventory/filtering';
import { createTestDatabase } from '@inventory/testkit';
import {
  availablePrefixIps,
  availableRangeIps,
  availablePrefixes,
  allocatePrefixes,
  vrfIs,
  allocationIndexDdl,
  type QueryRunner,
} from '../src/allocation';

/**
 * The free-space search on scratch tables shaped like the ipam ones (prefix cidr, address inet,
 * start/end inet, nullable vrf_id), with the indexes docs/decisions/019-ip-index.md chose.
 * Expected answers are worked out by hand in the comments.
 */
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;
let statements = 0;
const q: QueryRunner = {
  async query(statement: Sql) {
    statements++;
    const { text, values } = render(statement);
    return (await client.query(text, values)).rows;
  },
};

beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query(`
    CREATE TABLE pfx (id serial PRIMARY KEY, vrf_id int, prefix cidr NOT NULL);
    CREATE TABLE ip (id serial PRIMARY KEY, vrf_id int, address inet NOT NULL);
    CREATE TABLE rng (id serial PRIMARY KEY, vrf_id int, start_address inet NOT NULL, end_address inet NOT NULL);
  `);
  // the indexes decision 017 chose, as a migration would create them (twice: they are idempotent)
  for (const statement of [...allocationIndexDdl({ ipAddress: 'ip', prefix: 'pfx', ipRange: 'rng' }), ...allocationIndexDdl({ ipAddress: 'ip', prefix: 'pfx' })]) {
    await client.query(statement);
  }
});

afterAll(async () => {
  await client?.end();
  await db?.drop();
});

/** A fresh set of rows for one test. */
async function load(t: { prefixes?: [string, number?][]; addresses?: [string, number?][]; ranges?: [string, string, number?][] }) {
  await client.query('TRUNCATE pfx, ip, rng');
  for (const [p, v] of t.prefixes ?? []) await client.query('INSERT INTO pfx (prefix, vrf_id) VALUES ($1, $2)', [p, v ?? null]);
  for (const [a, v] of t.addresses ?? []) await client.query('INSERT INTO ip (address, vrf_id) VALUES ($1, $2)', [a, v ?? null]);
  for (const [s, e, v] of t.ranges ?? []) await client.query('INSERT INTO rng (start_address, end_address, vrf_id) VALUES ($1, $2, $3)', [s, e, v ?? null]);
}

const prefixes = (vrf: number | null = null) => ({ table: 'pfx', where: vrfIs(vrf) });
const addresses = (vrf: number | null | 'all' = null) => ({ table: 'ip', where: vrf === 'all' ? undefined : vrfIs(vrf) });
const ranges = (vrf: number | null = null) => ({ table: 'rng', where: vrfIs(vrf) });
const free = (prefix: string, vrf: number | null = null) => availablePrefixes(q, { prefix, prefixes: prefixes(vrf) });
const ips = (prefix: string, count: number, opts: { isPool?: boolean; markUtilized?: boolean; vrf?: number | null | 'all' } = {}) =>
  availablePrefixIps(q, { prefix, count, isPool: opts.isPool, markUtilized: opts.markUtilized, addresses: addresses(opts.vrf ?? null), ranges: ranges(opts.vrf === 'all' ? null : (opts.vrf ?? null)) });
const alloc = (prefix: string, lengths: number[], vrf: number | null = null) => allocatePrefixes(q, { prefix, prefixes: prefixes(vrf), lengths });

describe('available-prefixes (spec §4.1)', () => {
  test('the spec example: /24 minus a /26 and a /27', async () => {
    await load({ prefixes: [['192.0.2.64/26'], ['192.0.2.192/27'], ['192.0.2.0/24']] });
    expect(await free('192.0.2.0/24')).toEqual(['192.0.2.0/26', '192.0.2.128/26', '192.0.2.224/27']);
  });

  test('an empty parent is one block; a full one none; the parent itself and its supernets do not count', async () => {
    await load({ prefixes: [['10.0.0.0/8'], ['0.0.0.0/1'], ['11.0.0.0/9'], ['11.128.0.0/9']] });
    expect(await free('10.0.0.0/8')).toEqual(['10.0.0.0/8']);
    expect(await free('11.0.0.0/8')).toEqual([]);
  });

  test('children of mixed lengths, nested and unaligned gaps', async () => {
    // /24 minus 0–127 (a /25 holding a /26), 128–131, 200: free 132–199 and 201–255
    await load({ prefixes: [['10.0.0.0/25'], ['10.0.0.0/26'], ['10.0.0.128/30'], ['10.0.0.200/32']] });
    expect(await free('10.0.0.0/24')).toEqual([
      '10.0.0.132/30', '10.0.0.136/29', '10.0.0.144/28', '10.0.0.160/27', '10.0.0.192/29',
      '10.0.0.201/32', '10.0.0.202/31', '10.0.0.204/30', '10.0.0.208/28', '10.0.0.224/27',
    ]);
    // /28 minus 0–4 and 11–15: the gap 5–10 is 5, 6–7, 8–9, 10
    await load({ prefixes: [['10.0.0.0/30'], ['10.0.0.4/32'], ['10.0.0.11/32'], ['10.0.0.12/30']] });
    expect(await free('10.0.0.0/28')).toEqual(['10.0.0.5/32', '10.0.0.6/31', '10.0.0.8/31', '10.0.0.10/32']);
  });

  test('VRF separation: only the parent VRF counts (also for a global container)', async () => {
    await load({ prefixes: [['10.1.0.0/17', 1], ['10.1.128.0/18'], ['10.1.0.0/24', 2]] });
    expect(await free('10.1.0.0/16')).toEqual(['10.1.0.0/17', '10.1.192.0/18']);
    expect(await free('10.1.0.0/16', 1)).toEqual(['10.1.128.0/17']);
    expect(await free('10.1.0.0/16', 3)).toEqual(['10.1.0.0/16']);
  });

  test('IPv6: a /48 with /64 children, and the ends of the address space', async () => {
    await load({ prefixes: [['2001:db8::/64'], ['2001:db8:0:2::/64']] });
    expect(await free('2001:db8::/48')).toEqual([
      '2001:db8:0:1::/64', '2001:db8:0:3::/64', '2001:db8:0:4::/62', '2001:db8:0:8::/61', '2001:db8:0:10::/60',
      '2001:db8:0:20::/59', '2001:db8:0:40::/58', '2001:db8:0:80::/57', '2001:db8:0:100::/56', '2001:db8:0:200::/55',
      '2001:db8:0:400::/54', '2001:db8:0:800::/53', '2001:db8:0:1000::/52', '2001:db8:0:2000::/51',
      '2001:db8:0:4000::/50', '2001:db8:0:8000::/49',
    ]);
    // first and last blocks of the space: nothing may overflow
    await load({ prefixes: [['ffff:ffff:ffff:ffff::/65'], ['::/9'], ['0.0.0.0/9'], ['255.255.255.255/32']] });
    expect(await free('ffff:ffff:ffff:ffff::/64')).toEqual(['ffff:ffff:ffff:ffff:8000::/65']);
    expect(await free('::/8')).toEqual(['80::/9']);
    expect(await free('0.0.0.0/8')).toEqual(['0.128.0.0/9']);
    expect(await free('255.255.255.252/30')).toEqual(['255.255.255.252/31', '255.255.255.254/32']);
  });

  test('IPv6 gaps far larger than 2^63', async () => {
    // 2000::/3 minus 2400::/6 (2400:: … 27ff:…): left 2000::/6, right 2800::/5 and 3000::/4
    await load({ prefixes: [['2400::/6']] });
    expect(await free('2000::/3')).toEqual(['2000::/6', '2800::/5', '3000::/4']);
    // a single /128 in the middle of a /16: 15 blocks on each side (…/17 … /128) plus nothing else
    await load({ prefixes: [['2001:8000::/128']] });
    const blocks = await free('2001::/16');
    expect(blocks[0]).toBe('2001::/17');
    expect(blocks[1]).toBe('2001:8000::1/128');
    expect(blocks.at(-1)).toBe('2001:c000::/18');
    expect(blocks).toHaveLength(1 + 111);
  });
});

describe('available-prefixes POST: first-fit allocation', () => {
  test('the first aligned block of each length, from one working copy', async () => {
    await load({ prefixes: [['192.0.2.64/26'], ['192.0.2.192/27']] });
    expect(await alloc('192.0.2.0/24', [26])).toEqual(['192.0.2.0/26']);
    expect(await alloc('192.0.2.0/24', [27, 27])).toEqual(['192.0.2.0/27', '192.0.2.32/27']);
    // free /26 /26 /27: no /25
    expect(await alloc('192.0.2.0/24', [25])).toBeNull();
    // a /28 first, then the /26 at .128, then no /26 left: the whole request fails
    expect(await alloc('192.0.2.0/24', [28, 26])).toEqual(['192.0.2.0/28', '192.0.2.128/26']);
    expect(await alloc('192.0.2.0/24', [28, 26, 26])).toBeNull();
    // shorter than the parent: none; equal: the parent's block itself when empty
    expect(await alloc('192.0.2.0/24', [23])).toBeNull();
    expect(await alloc('198.51.100.0/24', [24])).toEqual(['198.51.100.0/24']);
    expect(await alloc('198.51.100.0/24', [32, 32, 31])).toEqual(['198.51.100.0/32', '198.51.100.1/32', '198.51.100.2/31']);
    expect(await alloc('192.0.2.0/24', [])).toEqual([]);
  });

  test('an unaligned gap: the first block whose length fits', async () => {
    await load({ prefixes: [['10.0.0.0/30'], ['10.0.0.4/32'], ['10.0.0.11/32'], ['10.0.0.12/30']] });
    expect(await alloc('10.0.0.0/28', [31])).toEqual(['10.0.0.6/31']);
    expect(await alloc('10.0.0.0/28', [32, 31, 31, 32])).toEqual(['10.0.0.5/32', '10.0.0.6/31', '10.0.0.8/31', '10.0.0.10/32']);
    expect(await alloc('10.0.0.0/28', [30])).toBeNull();
  });

  test('IPv6, VRFs, and lengths the family cannot have', async () => {
    await load({ prefixes: [['2001:db8::/64'], ['2001:db8::/56', 5]] });
    expect(await alloc('2001:db8::/48', [64, 56])).toEqual(['2001:db8:0:1::/64', '2001:db8:0:100::/56']);
    expect(await alloc('2001:db8::/48', [56], 5)).toEqual(['2001:db8:0:100::/56']);
    expect(await alloc('2001:db8::/48', [128])).toEqual(['2001:db8:0:1::/128']);
    await expect(alloc('10.0.0.0/8', [33])).rejects.toThrow(RangeError);
    await expect(alloc('10.0.0.0/8', [-1])).rejects.toThrow(RangeError);
  });
});

describe('available-ips of a prefix (spec §4.2)', () => {
  test('IPv4: network and broadcast excluded unless a pool; host masks ignored', async () => {
    await load({ addresses: [['192.0.2.1/24'], ['192.0.2.3/29'], ['192.0.2.3/32']] });
    expect(await ips('192.0.2.0/29', 50)).toEqual(['192.0.2.2/29', '192.0.2.4/29', '192.0.2.5/29', '192.0.2.6/29']);
    expect(await ips('192.0.2.0/29', 50, { isPool: true })).toEqual(['192.0.2.0/29', '192.0.2.2/29', '192.0.2.4/29', '192.0.2.5/29', '192.0.2.6/29', '192.0.2.7/29']);
    expect(await ips('192.0.2.0/29', 2)).toEqual(['192.0.2.2/29', '192.0.2.4/29']);
    expect(await ips('192.0.2.0/29', 0)).toEqual([]);
    expect(await ips('192.0.2.0/29', 50, { markUtilized: true })).toEqual([]);
    expect(await ips('192.0.2.0/29', 50, { markUtilized: true, isPool: true })).toEqual([]);
  });

  test('/31 and /32 use every address; a full parent has none', async () => {
    await load({ addresses: [['192.0.2.9/24'], ['192.0.2.17/30'], ['192.0.2.18/30']] });
    expect(await ips('192.0.2.0/31', 50)).toEqual(['192.0.2.0/31', '192.0.2.1/31']);
    expect(await ips('192.0.2.8/31', 50)).toEqual(['192.0.2.8/31']);
    expect(await ips('192.0.2.10/32', 50)).toEqual(['192.0.2.10/32']);
    expect(await ips('192.0.2.9/32', 50)).toEqual([]);
    expect(await ips('192.0.2.16/30', 50)).toEqual([]);
    expect(await ips('192.0.2.16/30', 50, { isPool: true })).toEqual(['192.0.2.16/30', '192.0.2.19/30']);
  });

  test('IPv6: only the subnet-router anycast address is excluded; /127 and /128 use every address', async () => {
    await load({ addresses: [['2001:db8::5/64']] });
    expect(await ips('2001:db8::/64', 6)).toEqual(['2001:db8::1/64', '2001:db8::2/64', '2001:db8::3/64', '2001:db8::4/64', '2001:db8::6/64', '2001:db8::7/64']);
    expect(await ips('2001:db8::/126', 50)).toEqual(['2001:db8::1/126', '2001:db8::2/126', '2001:db8::3/126']);
    expect(await ips('2001:db8::/126', 50, { isPool: true })).toEqual(['2001:db8::/126', '2001:db8::1/126', '2001:db8::2/126', '2001:db8::3/126']);
    expect(await ips('2001:db8::4/127', 50)).toEqual(['2001:db8::4/127']);
    expect(await ips('2001:db8::6/127', 50)).toEqual(['2001:db8::6/127', '2001:db8::7/127']);
    expect(await ips('2001:db8::5/128', 50)).toEqual([]);
    expect(await ips('2001:db8::8/128', 50)).toEqual(['2001:db8::8/128']);
  });

  test('IPv6 gaps larger than 2^63 at both ends of the space', async () => {
    await load({ addresses: [['ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/1']] });
    // the /1 holds 2^127 addresses: one used near its end
    expect(await ips('8000::/1', 2)).toEqual(['8000::1/1', '8000::2/1']);
    expect(await ips('ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffc/126', 5)).toEqual([
      'ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffd/126', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/126',
    ]);
    await load({ addresses: [['::1/128']] });
    expect(await ips('::/1', 2, { isPool: true })).toEqual(['::/1', '::2/1']);
    expect(await ips('255.255.255.252/30', 5)).toEqual(['255.255.255.253/30', '255.255.255.254/30']);
    expect(await ips('0.0.0.0/30', 5, { isPool: true })).toEqual(['0.0.0.0/30', '0.0.0.1/30', '0.0.0.2/30', '0.0.0.3/30']);
  });

  test('IP ranges inside the prefix take all their addresses; ranges reaching outside or in another VRF do not', async () => {
    await load({
      addresses: [['10.0.0.5/24'], ['10.0.0.12/24']],
      ranges: [['10.0.0.1/24', '10.0.0.10/24'], ['10.0.0.250/24', '10.0.1.5/24'], ['10.0.0.11/24', '10.0.0.20/24', 7], ['10.0.0.9/24', '10.0.0.11/24']],
    });
    // 1–11 by ranges (overlapping, one holding an address), 12 by an address
    expect(await ips('10.0.0.0/24', 3)).toEqual(['10.0.0.13/24', '10.0.0.14/24', '10.0.0.15/24']);
    expect((await ips('10.0.0.0/24', 1000)).slice(-2)).toEqual(['10.0.0.253/24', '10.0.0.254/24']);
    // VRF 7: its range (11–20) only
    expect(await ips('10.0.0.0/24', 2, { vrf: 7 })).toEqual(['10.0.0.1/24', '10.0.0.2/24']);
    // in the /28 (1–14 usable) VRF 7's range (11–20) reaches outside: nothing taken
    expect(await ips('10.0.0.0/28', 50, { vrf: 7 })).toEqual(Array.from({ length: 14 }, (_, i) => `10.0.0.${i + 1}/28`));
  });

  test('VRF separation; a global container counts the addresses of every VRF', async () => {
    await load({ addresses: [['10.0.0.1/24', 1], ['10.0.0.2/24'], ['10.0.0.3/24', 2]] });
    expect(await ips('10.0.0.0/24', 2)).toEqual(['10.0.0.1/24', '10.0.0.3/24']);
    expect(await ips('10.0.0.0/24', 2, { vrf: 1 })).toEqual(['10.0.0.2/24', '10.0.0.3/24']);
    expect(await ips('10.0.0.0/24', 2, { vrf: 'all' })).toEqual(['10.0.0.4/24', '10.0.0.5/24']);
  });

  test('long used stretches are read in several chunks; duplicates do not matter', async () => {
    await client.query('TRUNCATE pfx, ip, rng');
    // hosts 10.0.0.1 … 10.0.11.184 (3,000), twice over, and one more free at .200
    await client.query(`INSERT INTO ip (address) SELECT set_masklen('10.0.0.0'::inet + i, 20) FROM generate_series(1, 3000) i, generate_series(1, 2)`);
    await client.query(`INSERT INTO ip (address) SELECT '10.0.11.186/20'::inet + i FROM generate_series(0, 13) i`);
    expect(await ips('10.0.0.0/20', 3)).toEqual(['10.0.11.185/20', '10.0.11.200/20', '10.0.11.201/20']);
    const before = statements;
    expect(await ips('10.0.0.0/20', 1)).toEqual(['10.0.11.185/20']);
    expect(statements - before).toBe(1);
  });
});

describe('available-ips of an IP range (spec §4.3)', () => {
  const rangeIps = (start: string, end: string, count: number, vrf: number | null = null) => availableRangeIps(q, { start, end, count, addresses: addresses(vrf) });

  test('start…end inclusive, addresses compared in inet order (mask-sensitive)', async () => {
    await load({ addresses: [['10.0.0.10/24'], ['10.0.0.12/24'], ['10.0.0.13/32'], ['10.0.0.20/24'], ['10.0.0.15/24', 4]] });
    // .13/32 sorts after the /24 end: it does not count (reference quirk)
    expect(await rangeIps('10.0.0.10/24', '10.0.0.20/24', 4)).toEqual(['10.0.0.11/24', '10.0.0.13/24', '10.0.0.14/24', '10.0.0.15/24']);
    expect(await rangeIps('10.0.0.10/24', '10.0.0.20/24', 100)).toEqual(['10.0.0.11/24', '10.0.0.13/24', '10.0.0.14/24', '10.0.0.15/24', '10.0.0.16/24', '10.0.0.17/24', '10.0.0.18/24', '10.0.0.19/24']);
    expect(await rangeIps('10.0.0.14/24', '10.0.0.16/24', 100, 4)).toEqual(['10.0.0.14/24', '10.0.0.16/24']);
    // a range of /32s: now .13/32 counts
    expect(await rangeIps('10.0.0.12/32', '10.0.0.14/32', 100)).toEqual(['10.0.0.12/32', '10.0.0.14/32']);
  });

  test('first and last addresses are usable; IPv6 ranges wider than 2^63', async () => {
    await load({ addresses: [['2001:db8::/64'], ['2001:db8::2/64']] });
    expect(await rangeIps('2001:db8::/64', '2001:db8::ffff:ffff:ffff:ffff/64', 3)).toEqual(['2001:db8::1/64', '2001:db8::3/64', '2001:db8::4/64']);
    expect(await rangeIps('2001:db8::/16', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff/16', 2)).toEqual(['2001:db8::/16', '2001:db8::1/16']);
    expect(await rangeIps('10.0.0.0/8', '10.0.0.1/8', 5)).toEqual(['10.0.0.0/8', '10.0.0.1/8']);
  });
});

describe('plans', () => {
  test('the occupied rows are read by an index range scan bounded by the parent', async () => {
    await client.query('TRUNCATE pfx, ip, rng');
    await client.query(`INSERT INTO ip (address) SELECT '10.0.0.0/8'::inet + i * 7 FROM generate_series(1, 20000) i`);
    await client.query(`INSERT INTO pfx (prefix) SELECT set_masklen('10.0.0.0'::inet + i * 256, 24)::cidr FROM generate_series(0, 20000, 2) i`);
    await client.query('ANALYZE ip; ANALYZE pfx');
    const plans: string[] = [];
    const explain: QueryRunner = {
      async query(statement: Sql) {
        const { text, values } = render(sql`EXPLAIN ${statement}`);
        plans.push((await client.query(text, values)).rows.map((r) => r['QUERY PLAN']).join('\n'));
        return [];
      },
    };
    await availablePrefixIps(explain, { prefix: '10.0.0.0/16', count: 5, addresses: { table: 'ip' } });
    await availablePrefixes(explain, { prefix: '10.0.0.0/8', prefixes: { table: 'pfx' } });
    for (const plan of plans) {
      expect(plan).toMatch(/Index (Only )?Scan using (ip_host_idx|pfx_prefix_idx)/);
      expect(plan).not.toMatch(/Seq Scan on (ip|pfx)/);
    }
  });
});

/**
 * Random cases against a reference model on BigInt integers (the textbook loops the SQL avoids):
 * free intervals by walking the sorted occupied intervals, blocks by taking the largest aligned
 * block at each start, addresses one by one. Outputs are compared after PostgreSQL has
 * normalised the model's (uncompressed) text.
 */
describe('against a reference model', () => {
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return Math.floor((seed / 2147483648) * n);
  };
  const bits = (v6: boolean) => (v6 ? 128n : 32n);
  const text = (x: bigint, v6: boolean) =>
    v6 ? Array.from({ length: 8 }, (_, i) => ((x >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':') : Array.from({ length: 4 }, (_, i) => ((x >> BigInt(24 - 8 * i)) & 0xffn).toString()).join('.');
  const block = (net: bigint, len: number, v6: boolean) => ({ lo: net, hi: net + (1n << (bits(v6) - BigInt(len))) - 1n });

  function gaps(f: bigint, l: bigint, used: { lo: bigint; hi: bigint }[]) {
    const out: { lo: bigint; hi: bigint }[] = [];
    let at = f;
    for (const u of [...used].sort((a, b) => (a.lo < b.lo ? -1 : a.lo > b.lo ? 1 : 0))) {
      const lo = u.lo < f ? f : u.lo;
      const hi = u.hi > l ? l : u.hi;
      if (hi < lo) continue;
      if (lo > at) out.push({ lo: at, hi: lo - 1n });
      if (hi + 1n > at) at = hi + 1n;
    }
    if (at <= l) out.push({ lo: at, hi: l });
    return out;
  }
  function blocks(g: { lo: bigint; hi: bigint }[], v6: boolean) {
    const out: string[] = [];
    for (let { lo } of g) {
      const { hi } = g.find((x) => x.lo <= lo && lo <= x.hi)!;
      while (lo <= hi) {
        let size = 0n;
        while (lo % (1n << (size + 1n)) === 0n && lo + (1n << (size + 1n)) - 1n <= hi && size + 1n <= bits(v6)) size++;
        out.push(`${text(lo, v6)}/${bits(v6) - size}`);
        lo += 1n << size;
      }
    }
    return out;
  }
  async function normalise(values: string[], kind: 'cidr' | 'address') {
    const cast = kind === 'cidr' ? 'x::cidr::text' : "host(x::inet) || '/' || masklen(x::inet)";
    const { rows } = await client.query(`SELECT ${cast} AS v FROM unnest($1::text[]) WITH ORDINALITY AS u(x, i) ORDER BY i`, [values]);
    return rows.map((r) => r.v as string);
  }

  test('a /48 with 1,500 children read in several chunks (nested /60s, VRF rows in between)', async () => {
    const base = 0x20010db8n << 96n;
    const children: { net: bigint; len: number }[] = [];
    for (let i = 0; i < 1500; i++) {
      const len = rand(10) === 0 ? 60 : 64;
      const net = base + (BigInt(rand(1 << 14)) << 64n);
      children.push({ net: net - (net % (1n << BigInt(128 - len))), len });
    }
    await load({ prefixes: [...children.map((c): [string, number?] => [`${text(c.net, true)}/${c.len}`]), ...children.slice(0, 300).map((c): [string, number?] => [`${text(c.net + (1n << 64n), true)}/64`, 9])] });
    const used = children.map((c) => block(c.net, c.len, true));
    const all = gaps(base, base + (1n << 80n) - 1n, used);
    const before = statements;
    expect(await free('2001:db8::/48')).toEqual(await normalise(blocks(all, true), 'cidr'));
    expect(statements - before).toBe(1);
    // first fits, as the model finds them: the /50s only after the children (2001:db8:0:4000::), a /62 earlier
    const firstFit = (len: number, free = all) => {
      const step = 1n << BigInt(128 - len);
      for (const g of free) {
        const a = g.lo % step === 0n ? g.lo : g.lo - (g.lo % step) + step;
        if (a + step - 1n <= g.hi) return { text: `${text(a, true)}/${len}`, a };
      }
      return null;
    };
    expect(await alloc('2001:db8::/48', [50])).toEqual(['2001:db8:0:4000::/50']);
    expect(await alloc('2001:db8::/48', [62])).toEqual(await normalise([firstFit(62)!.text], 'cidr'));
    // a second item sees the free set without the first one's block
    const first = firstFit(64)!;
    const second = firstFit(63, gaps(base, base + (1n << 80n) - 1n, [...used, block(first.a, 64, true)]))!;
    expect(await alloc('2001:db8::/48', [64, 63])).toEqual(await normalise([first.text, second.text], 'cidr'));
  });

  for (const v6 of [false, true]) {
    test(`${v6 ? 'IPv6' : 'IPv4'}: random children, addresses and ranges`, async () => {
      const max = Number(bits(v6));
      for (let round = 0; round < 25; round++) {
        const plen = max - 6 - rand(5); // 2^6 … 2^10 addresses
        const base = v6 ? (0x20010db8n << 96n) + (BigInt(rand(1000)) << 64n) + (BigInt(rand(4)) << 62n) : 0x0a000000n + (BigInt(rand(4096)) << 12n);
        const parent = base - (base % (1n << BigInt(max - plen)));
        const size = 1n << BigInt(max - plen);
        const at = () => parent + BigInt(rand(Number(size)));
        const children = Array.from({ length: rand(40) }, () => {
          const len = plen + 1 + rand(max - plen);
          const net = at();
          return { net: net - (net % (1n << BigInt(max - len))), len };
        });
        const hosts = Array.from({ length: rand(3) === 0 ? Number(size) - rand(4) : rand(200) }, (_, i) => (rand(3) === 0 ? parent + BigInt(i) : at()));
        const rangeRows = Array.from({ length: rand(4) }, () => {
          const a = at();
          const b = a + BigInt(rand(40));
          return { lo: a, hi: b };
        });
        await load({
          prefixes: children.map((c) => [`${text(c.net, v6)}/${c.len}`]),
          addresses: hosts.map((h) => [`${text(h, v6)}/${plen - rand(3)}`]),
          ranges: rangeRows.map((r) => [`${text(r.lo, v6)}/${plen}`, `${text(r.hi, v6)}/${plen}`]),
        });
        const parentText = `${text(parent, v6)}/${plen}`;
        const used = children.map((c) => block(c.net, c.len, v6));
        expect(await free(parentText)).toEqual(await normalise(blocks(gaps(parent, parent + size - 1n, used), v6), 'cidr'));

        const length = plen + rand(max - plen + 1);
        const firstFit = gaps(parent, parent + size - 1n, used)
          .map((g) => {
            const step = 1n << BigInt(max - length);
            const a = g.lo % step === 0n ? g.lo : g.lo - (g.lo % step) + step;
            return a + step - 1n <= g.hi ? a : null;
          })
          .find((a) => a !== null);
        expect(await alloc(parentText, [length])).toEqual(firstFit === undefined ? null : await normalise([`${text(firstFit!, v6)}/${length}`], 'cidr'));

        const isPool = rand(2) === 0;
        const whole = isPool || plen >= max - 1;
        const f = whole ? parent : parent + 1n;
        const l = whole || v6 ? parent + size - 1n : parent + size - 2n;
        const inside = rangeRows.filter((r) => r.hi < parent + size);
        const free2 = gaps(f, l, [...hosts.map((h) => ({ lo: h, hi: h })), ...inside]);
        const count = 1 + rand(300);
        const expected: string[] = [];
        for (const g of free2) for (let x = g.lo; x <= g.hi && expected.length < count; x++) expected.push(`${text(x, v6)}/${plen}`);
        expect(await ips(parentText, count, { isPool })).toEqual(await normalise(expected, 'address'));
      }
    });
  }
});
