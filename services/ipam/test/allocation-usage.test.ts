import pg from 'pg';
import { type Sql, render } from '@inventory/filtering';
import { createTestDatabase } from '@inventory/testkit';
import {
  availablePrefixIps,
  vrfIs,
  allocationIndexDdl,
  refreshBlockUsage,
  blockUsageFromScratch,
  usageScope,
  type QueryRunner,
  type UsageChange,
} from '../src/allocation';
import { ipBlockUsageStatements } from '../src/migrations/0007_ip_block_usage';

/**
 * The free-address search through the block-usage summary (docs/decisions/019-ip-index.md,
 * "Dense parents"), on scratch tables shaped like the ipam ones: hand-computed answers with the
 * statements each costs, the summary's upkeep against a count from scratch, and random parents
 * answered with and without the summary.
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
const tables = { usage: 'usage', addresses: 'ip' };

beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query(`
    CREATE TABLE ip (id serial PRIMARY KEY, vrf_id int, address inet NOT NULL);
    CREATE TABLE rng (id serial PRIMARY KEY, vrf_id int, start_address inet NOT NULL, end_address inet NOT NULL);
    CREATE TABLE pfx (id serial PRIMARY KEY, vrf_id int, prefix cidr NOT NULL);
    CREATE TABLE usage (scope bigint NOT NULL, len smallint NOT NULL, block cidr NOT NULL, used integer NOT NULL, PRIMARY KEY (scope, len, block));
  `);
  for (const statement of allocationIndexDdl({ ipAddress: 'ip', prefix: 'pfx', ipRange: 'rng' })) await client.query(statement);
});

afterAll(async () => {
  await client?.end();
  await db?.drop();
});

async function refresh(change: UsageChange) {
  const statement = refreshBlockUsage(tables, change);
  if (statement) await q.query(statement);
}

/** Rows of the summary as it is, and as counted from scratch. */
async function summary() {
  return (await client.query('SELECT u.scope::int, u.len::int, u.block::text, u.used FROM usage u ORDER BY u.scope, u.len, u.block')).rows;
}
async function scratch() {
  const { text, values } = render(blockUsageFromScratch('ip'));
  return (await client.query(text, values)).rows.map((r) => ({ scope: Number(r.scope), len: Number(r.len), block: String(r.block), used: Number(r.used) }));
}

/** Fresh rows: `runs` of consecutive hosts (`[first, count, mask, vrf]`), single addresses and ranges; the summary kept by its upkeep. */
async function load(t: { runs?: [string, number, number, number?][]; addresses?: [string, number?][]; ranges?: [string, string, number?][] }) {
  await client.query('TRUNCATE ip, rng, usage RESTART IDENTITY');
  for (const [first, count, mask, vrf] of t.runs ?? []) {
    await client.query(`INSERT INTO ip (address, vrf_id) SELECT set_masklen($1::inet + i, $3), $4 FROM generate_series(0, $2::bigint - 1) i`, [first, count, mask, vrf ?? null]);
  }
  for (const [a, v] of t.addresses ?? []) await client.query('INSERT INTO ip (address, vrf_id) VALUES ($1, $2)', [a, v ?? null]);
  for (const [s, e, v] of t.ranges ?? []) await client.query('INSERT INTO rng (start_address, end_address, vrf_id) VALUES ($1, $2, $3)', [s, e, v ?? null]);
  const { rows } = await client.query('SELECT array_agg(id) AS ids FROM ip');
  await refresh({ ids: rows[0].ids ?? [] });
}

type Scope = number | null | 'all';
const search = (prefix: string, count: number, o: { vrf?: Scope; isPool?: boolean; dense?: boolean } = {}) => {
  const vrf = o.vrf ?? null;
  return availablePrefixIps(q, {
    prefix,
    count,
    isPool: o.isPool,
    addresses: { table: 'ip', where: vrf === 'all' ? undefined : vrfIs(vrf) },
    ranges: { table: 'rng', where: vrfIs(vrf === 'all' ? null : vrf) },
    usage: o.dense === false ? undefined : { table: 'usage', scope: vrf === 'all' ? usageScope(null, true) : usageScope(vrf) },
  });
};
/** The answer and the statements it took. */
async function counted(run: () => Promise<string[]>) {
  const before = statements;
  const answer = await run();
  return { answer, statements: statements - before };
}

describe('the summary', () => {
  test('when addresses are loaded, then it holds distinct hosts per /16 and /24 (/112, /120) per VRF, global table and every VRF', async () => {
    await load({
      addresses: [['10.0.0.1/24'], ['10.0.0.1/32'], ['10.0.0.2/24', 5], ['10.0.0.2/16', 5], ['10.0.1.7/24', 5], ['2001:db8::1:5/64']],
    });
    expect(await summary()).toEqual([
      { scope: -1, len: 16, block: '10.0.0.0/16', used: 3 },
      { scope: -1, len: 24, block: '10.0.0.0/24', used: 2 },
      { scope: -1, len: 24, block: '10.0.1.0/24', used: 1 },
      { scope: -1, len: 112, block: '2001:db8::1:0/112', used: 1 },
      { scope: -1, len: 120, block: '2001:db8::1:0/120', used: 1 },
      { scope: 0, len: 16, block: '10.0.0.0/16', used: 1 },
      { scope: 0, len: 24, block: '10.0.0.0/24', used: 1 },
      { scope: 0, len: 112, block: '2001:db8::1:0/112', used: 1 },
      { scope: 0, len: 120, block: '2001:db8::1:0/120', used: 1 },
      { scope: 5, len: 16, block: '10.0.0.0/16', used: 2 },
      { scope: 5, len: 24, block: '10.0.0.0/24', used: 1 },
      { scope: 5, len: 24, block: '10.0.1.0/24', used: 1 },
    ]);
    expect(await summary()).toEqual(await scratch());
  });

  test('when addresses are created, moved (address or VRF) and deleted, then one statement per write keeps it equal to a count from scratch', async () => {
    await load({ runs: [['10.0.0.0', 70000, 8], ['10.3.0.0', 600, 24, 1]] });
    expect(await summary()).toEqual(await scratch());
    expect((await summary()).find((r) => r.scope === 0 && r.len === 16 && r.block === '10.0.0.0/16')?.used).toBe(65536);
    // a bulk create of 1,000 (some repeating hosts already there)
    const created = await client.query(`INSERT INTO ip (address, vrf_id) SELECT '10.0.255.0/8'::inet + i * 3, CASE WHEN i % 4 = 0 THEN 1 END FROM generate_series(0, 999) i RETURNING id`);
    let before = statements;
    await refresh({ ids: created.rows.map((r) => r.id) });
    expect(statements - before).toBe(1);
    expect(await summary()).toEqual(await scratch());
    // moved: 300 to another VRF, 200 to other addresses (their old places are given as they were)
    const moved = await client.query(`SELECT id, vrf_id, address::text FROM ip WHERE id % 7 = 0 ORDER BY id LIMIT 500`);
    await client.query(`UPDATE ip SET vrf_id = 2 WHERE id = ANY($1)`, [moved.rows.slice(0, 300).map((r) => r.id)]);
    await client.query(`UPDATE ip SET address = set_masklen('10.9.0.0'::inet + id, 16) WHERE id = ANY($1)`, [moved.rows.slice(300).map((r) => r.id)]);
    await refresh({ ids: moved.rows.map((r) => r.id), before: moved.rows.map((r) => ({ vrf: r.vrf_id, address: r.address })) });
    expect(await summary()).toEqual(await scratch());
    // deleted: counted before the rows go, without them (what a cascade does too)
    const gone = (await client.query(`SELECT id FROM ip WHERE id % 5 = 0 OR address <<= '10.3.0.0/16'`)).rows.map((r) => r.id);
    before = statements;
    await refresh({ ids: gone, exclude: gone });
    expect(statements - before).toBe(1);
    await client.query('DELETE FROM ip WHERE id = ANY($1)', [gone]);
    expect(await summary()).toEqual(await scratch());
    // every address gone: no row left
    const all = (await client.query('SELECT id FROM ip')).rows.map((r) => r.id);
    await refresh({ ids: all, exclude: all });
    await client.query('DELETE FROM ip');
    expect(await summary()).toEqual([]);
    expect(refreshBlockUsage(tables, {})).toBeNull();
  });

  test('when the migration runs on stored addresses, then it fills the summary as a count from scratch', async () => {
    await load({ runs: [['10.0.0.0', 3000, 8], ['2001:db8::', 700, 64, 3]], addresses: [['10.0.0.1/32', 3]] });
    const expected = await scratch();
    await client.query('CREATE SCHEMA mig; CREATE TABLE mig.ip_address (id serial PRIMARY KEY, vrf_id bigint, address inet NOT NULL); INSERT INTO mig.ip_address (vrf_id, address) SELECT vrf_id, address FROM ip');
    for (const statement of ipBlockUsageStatements('mig')) await client.query(statement);
    const { rows } = await client.query('SELECT u.scope::int, u.len::int, u.block::text, u.used FROM mig.ip_block_usage u ORDER BY u.scope, u.len, u.block');
    expect(rows).toEqual(expected);
    await client.query('DROP SCHEMA mig CASCADE');
  });
});

describe('available-ips through the summary (hand-computed)', () => {
  test('when 66,570 addresses are used from the start of a /8, then the first free comes in one statement', async () => {
    // 10.0.0.0 … 10.1.4.9: 10.0.0.0/16 full, 10.1.0.0/24 … 10.1.3.0/24 full, 10.1.4.0/24 ten used
    await load({ runs: [['10.0.0.0', 65536 + 4 * 256 + 10, 8]] });
    expect(await counted(() => search('10.0.0.0/8', 3))).toEqual({ answer: ['10.1.4.10/8', '10.1.4.11/8', '10.1.4.12/8'], statements: 1 });
    expect(await search('10.0.0.0/8', 3, { dense: false })).toEqual(['10.1.4.10/8', '10.1.4.11/8', '10.1.4.12/8']);
    // a /16 inside: its whole domain is full
    expect(await counted(() => search('10.0.0.0/16', 5))).toEqual({ answer: [], statements: 1 });
    expect(await search('10.0.0.0/16', 5, { isPool: true })).toEqual([]);
    // a /20 of the second /16: its first /24s full
    expect(await search('10.1.0.0/20', 2)).toEqual(['10.1.4.10/20', '10.1.4.11/20']);
    // another VRF sees none of them; every VRF's (a global container) sees them all
    expect(await search('10.0.0.0/8', 2, { vrf: 4 })).toEqual(['10.0.0.1/8', '10.0.0.2/8']);
    expect(await search('10.0.0.0/8', 1, { vrf: 'all' })).toEqual(['10.1.4.10/8']);
  });

  test('when a block is full only in every VRF taken together, then a global container skips it and each VRF does not', async () => {
    // 10.0.0.0/24: .0–.127 in VRF 1, .100–.255 in the global table (.100–.127 in both), .5 twice more with other masks
    await load({ runs: [['10.0.0.0', 128, 24, 1], ['10.0.0.100', 156, 24]], addresses: [['10.0.0.5/32', 1], ['10.0.0.5/16']] });
    expect(await search('10.0.0.0/23', 2, { vrf: 'all' })).toEqual(['10.0.1.0/23', '10.0.1.1/23']);
    expect(await search('10.0.0.0/23', 2)).toEqual(['10.0.0.1/23', '10.0.0.2/23']);
    expect(await search('10.0.0.0/23', 2, { vrf: 1 })).toEqual(['10.0.0.128/23', '10.0.0.129/23']);
  });

  test('when the network and broadcast addresses leave a block unfull, then the search reads it, finds nothing and goes on', async () => {
    await load({ runs: [['10.0.0.1', 254, 24], ['10.1.0.1', 255, 16]] });
    expect(await search('10.0.0.0/24', 5)).toEqual([]);
    expect(await search('10.0.0.0/24', 5, { isPool: true })).toEqual(['10.0.0.0/24', '10.0.0.255/24']);
    // 10.1.0.0/24: .1–.255 used, .0 is the network: the next /24 answers (a second step of the same statement)
    expect(await counted(() => search('10.1.0.0/16', 2))).toEqual({ answer: ['10.1.1.0/16', '10.1.1.1/16'], statements: 1 });
  });

  test('when IP ranges cover many empty blocks, then the search jumps past them', async () => {
    // 10.0.0.1 … 10.3.255.255 in a range (four /16s without any address): skipped before any block is read
    await load({ ranges: [['10.0.0.1/8', '10.3.255.255/8']] });
    expect(await counted(() => search('10.0.0.0/8', 2))).toEqual({ answer: ['10.4.0.0/8', '10.4.0.1/8'], statements: 1 });
    // ranges end to end, a range from inside a used block, and one reaching outside the prefix (ignored)
    await load({
      runs: [['10.0.0.0', 700, 8]],
      ranges: [['10.0.2.188/8', '10.0.2.199/8'], ['10.0.2.200/8', '10.1.0.5/8'], ['10.1.0.6/8', '10.1.0.9/8'], ['10.1.0.11/8', '11.0.0.5/8']],
    });
    expect(await search('10.0.0.0/8', 3)).toEqual(['10.1.0.10/8', '10.1.0.11/8', '10.1.0.12/8']);
    expect(await search('10.0.0.0/8', 3, { dense: false })).toEqual(['10.1.0.10/8', '10.1.0.11/8', '10.1.0.12/8']);
    // a range to the end of the domain: nothing after it
    await load({ runs: [['10.0.0.1', 100, 24]], ranges: [['10.0.0.101/24', '10.0.0.254/24']] });
    expect(await search('10.0.0.0/24', 3)).toEqual([]);
  });

  test('when an IPv6 /112 lacks only its subnet-router anycast address, then its /120s are skipped in one read and the next /112 answers (three steps, one statement)', async () => {
    // 2001:db8::1 … 2001:db8::1:0 (65,536 hosts): ::/112 holds 65,535, ::/120 255, ::1:0/120 one
    await load({ runs: [['2001:db8::1', 65536, 64]] });
    expect(await counted(() => search('2001:db8::/64', 2))).toEqual({ answer: ['2001:db8::1:1/64', '2001:db8::1:2/64'], statements: 1 });
    // the top of the address space: no arithmetic past it
    await load({ runs: [['ffff:ffff:ffff:ffff:ffff:ffff:ffff:0', 65536, 112], ['255.255.0.0', 65536, 16]] });
    expect(await search('ffff:ffff:ffff:ffff:ffff:ffff:ffff:0/112', 5, { isPool: true })).toEqual([]);
    expect(await search('ffff:ffff:ffff:ffff:ffff:ffff:fffe:0/111', 1)).toEqual(['ffff:ffff:ffff:ffff:ffff:ffff:fffe:1/111']);
    expect(await search('255.255.0.0/16', 5, { isPool: true })).toEqual([]);
    expect(await search('255.254.0.0/15', 1)).toEqual(['255.254.0.1/15']);
  });

  test('when many addresses are asked for, then several steps gather them in order', async () => {
    // one free host every 100 over 10.0.0.0/16 after a full first /16 … of the /8
    await load({ runs: [['10.0.0.0', 65536, 8]] });
    await client.query(`INSERT INTO ip (address) SELECT set_masklen('10.1.0.0'::inet + i, 8) FROM generate_series(0, 65535) i WHERE i % 100 <> 0`);
    const { rows } = await client.query('SELECT array_agg(id) AS ids FROM ip');
    await refresh({ ids: rows[0].ids });
    const expected = Array.from({ length: 300 }, (_, i) => i * 100).map((i) => `10.1.${Math.floor(i / 256)}.${i % 256}/8`);
    expect(await search('10.0.0.0/8', 300)).toEqual(expected);
    expect(await search('10.0.0.0/8', 300, { dense: false })).toEqual(expected);
  });
});

describe('against the plain walk', () => {
  let seed = 11;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return Math.floor((seed / 2147483648) * n);
  };
  const text = (x: bigint, v6: boolean) =>
    v6 ? Array.from({ length: 8 }, (_, i) => ((x >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':') : Array.from({ length: 4 }, (_, i) => ((x >> BigInt(24 - 8 * i)) & 0xffn).toString()).join('.');

  for (const v6 of [false, true]) {
    test(`${v6 ? 'IPv6' : 'IPv4'}: random dense parents, VRFs, ranges and counts answer the same with and without the summary`, async () => {
      const max = v6 ? 128 : 32;
      for (let round = 0; round < 8; round++) {
        const plen = max - 14 - rand(3); // 2^14 … 2^16 addresses
        const base = v6 ? (0x20010db8n << 96n) + (BigInt(rand(1000)) << 64n) : 0x0a000000n + (BigInt(rand(64)) << 18n);
        const size = 1n << BigInt(max - plen);
        const parent = base - (base % size);
        const at = () => parent + BigInt(rand(Number(size)));
        const vrf = () => [null, null, 1, 2][rand(4)] ?? undefined;
        // long runs (full /24s and /16s), holes, duplicates with other masks, other VRFs
        const runs: [string, number, number, number?][] = Array.from({ length: 1 + rand(4) }, () => [text(at(), v6), rand(3) === 0 ? 70000 : rand(3000), plen - rand(3), vrf()]);
        runs.unshift([text(parent, v6), rand(2) === 0 ? Number(size) - rand(2) * rand(300) : rand(5000), plen, undefined]);
        const addresses: [string, number?][] = Array.from({ length: rand(100) }, () => [`${text(at(), v6)}/${plen}`, vrf()]);
        const ranges: [string, string, number?][] = Array.from({ length: rand(4) }, () => {
          const a = at();
          return [`${text(a, v6)}/${plen}`, `${text(a + BigInt(rand(rand(2) ? 40 : 5000)), v6)}/${plen}`, vrf()];
        });
        await load({ runs, addresses, ranges });
        const parentText = `${text(parent, v6)}/${plen}`;
        for (const scope of [null, 1, 'all'] as Scope[]) {
          const count = [1, 1, 5, 50, 300][rand(5)];
          const isPool = rand(3) === 0;
          const plain = await search(parentText, count, { vrf: scope, isPool, dense: false });
          expect({ parentText, scope, count, isPool, answer: await search(parentText, count, { vrf: scope, isPool }) }).toEqual({ parentText, scope, count, isPool, answer: plain });
        }
      }
    });
  }
});
