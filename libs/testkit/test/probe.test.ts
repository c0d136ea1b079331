import pg from 'pg';
import { createTestDatabase } from '@inventory/testkit';
import { SchemaProbe } from '../src/probe';

/** The fuzz's "a rejected write changes nothing" check: a snapshot tells every committed change, and only those. */
describe('SchemaProbe snapshots', () => {
  let database: { url: string; drop(): Promise<void> };
  let client: pg.Client;
  let probe: SchemaProbe;

  beforeAll(async () => {
    database = await createTestDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(`CREATE SCHEMA s; CREATE TABLE s.a (id int PRIMARY KEY, v text); CREATE TABLE s.b (id int PRIMARY KEY, n int)`);
    await client.query(`INSERT INTO s.a SELECT i, 'v' || i FROM generate_series(1, 50) i; INSERT INTO s.b VALUES (1, 1)`);
    probe = new SchemaProbe(database.url, 's');
  });

  afterAll(async () => {
    await probe?.end();
    await client.end();
    await database.drop();
  });

  const changed = async (work: string) => {
    const before = await probe.snapshot();
    await client.query(work).catch(() => undefined);
    return SchemaProbe.diff(before, await probe.snapshot());
  };

  test('when nothing or only rolled-back work happened, then no table differs', async () => {
    expect(await changed('SELECT 1')).toEqual([]);
    expect(await changed(`BEGIN; UPDATE s.a SET v = 'x'; INSERT INTO s.b VALUES (2, 2); DELETE FROM s.a WHERE id < 10; ROLLBACK`)).toEqual([]);
    expect(await changed(`INSERT INTO s.b VALUES (1, 5)`)).toEqual([]); // a failed statement
    expect(await changed(`SELECT * FROM s.a FOR UPDATE`)).toEqual([]); // row locks are not changes
  });

  test('when a committed write changes a row, adds one or removes one, then its table and only it differs', async () => {
    expect(await changed(`UPDATE s.a SET v = 'changed' WHERE id = 7`)).toEqual(['a: 50 rows → 50 rows (contents changed)']);
    // the same contents written again is still a write
    expect(await changed(`UPDATE s.b SET n = n WHERE id = 1`)).toEqual(['b: 1 rows → 1 rows (contents changed)']);
    expect(await changed(`INSERT INTO s.b VALUES (3, 3)`)).toEqual(['b: 1 rows → 2 rows']);
    expect(await changed(`DELETE FROM s.a WHERE id = 50`)).toEqual(['a: 50 rows → 49 rows']);
    // one row in, another out: the count holds, the contents do not
    expect(await changed(`BEGIN; DELETE FROM s.b WHERE id = 3; INSERT INTO s.b VALUES (4, 4); COMMIT`)).toEqual(['b: 2 rows → 2 rows (contents changed)']);
  });
});
