import { Db } from '@inventory/rest';
import { prepared, sql } from '@inventory/filtering';
import { createTestDatabase } from '@inventory/testkit';

/** The plan cache mode a connection runs with, and how many named statements it holds. */
const mode = sql`SELECT current_setting('plan_cache_mode') AS mode, (SELECT count(*)::int FROM pg_prepared_statements WHERE name LIKE 'p\\_%') AS prepared`;

describe('prepared statements', () => {
  let database: { url: string; drop(): Promise<void> };
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase();
    // one connection: what one statement leaves prepared is seen by the next
    db = new Db(database.url, 'public', 1);
    await db.query(sql`CREATE TABLE prep (id int PRIMARY KEY, v text)`);
    await db.query(sql`INSERT INTO prep SELECT i, 'v' || i FROM generate_series(1, 100) i`);
  });

  afterAll(async () => {
    await db.close();
    await database.drop();
  });

  const byId = (id: number) => sql`SELECT v, current_setting('plan_cache_mode') AS mode FROM prep WHERE id = ${id}`;

  test('when a statement marked generic runs, in a transaction or not, then it is named at once and runs with a generic plan', async () => {
    const [before] = await db.query(mode);
    expect(await db.query(prepared(byId(7), { generic: true }))).toEqual([{ v: 'v7', mode: 'force_generic_plan' }]);
    const inTx = await db.transaction(async (tx) => [await tx.query(prepared(byId(3), { generic: true })), await tx.query(mode)] as const);
    expect(inTx[0]).toEqual([{ v: 'v3', mode: 'force_generic_plan' }]);
    expect(inTx[1][0].prepared).toBe(Number(before.prepared) + 1);
  });

  test('when a statement marked prepared without a generic plan runs, then it is never named (planned for its values each time)', async () => {
    const [before] = await db.query(mode);
    const text = sql`SELECT v FROM prep WHERE id = ${9} AND v <> 'custom'`;
    for (let i = 0; i < 5; i++) expect(await db.query(prepared(text))).toEqual([{ v: 'v9' }]);
    expect((await db.query(mode))[0].prepared).toBe(before.prepared);
  });

  test('when an ordinary statement has run three times, then it is named from then on', async () => {
    const [before] = await db.query(mode);
    const text = (id: number) => sql`SELECT v FROM prep WHERE id = ${id} AND v <> 'hot'`;
    for (const id of [1, 2]) expect(await db.query(text(id))).toEqual([{ v: `v${id}` }]);
    expect((await db.query(mode))[0].prepared).toBe(before.prepared);
    for (const id of [3, 4, 5]) expect(await db.query(text(id))).toEqual([{ v: `v${id}` }]);
    expect((await db.query(mode))[0].prepared).toBe(Number(before.prepared) + 1);
  });

  test('when a migration changes a table under a named statement, then the statement still answers, with the new columns, in a transaction too', async () => {
    await db.query(sql`CREATE TABLE moving (id int PRIMARY KEY)`);
    await db.query(sql`INSERT INTO moving VALUES (1)`);
    const all = () => sql`SELECT * FROM moving t WHERE t.id = ${1}`;
    for (let i = 0; i < 4; i++) await db.query(all());
    await db.query(sql`ALTER TABLE moving ADD COLUMN note text DEFAULT 'added'`);
    expect(await db.query(all())).toEqual([{ id: 1, note: 'added' }]);
    await db.query(sql`ALTER TABLE moving ADD COLUMN more int DEFAULT 2`);
    expect(await db.transaction((tx) => tx.query(all()))).toEqual([{ id: 1, note: 'added', more: 2 }]);
  });

  test('when a prepared statement fails in a transaction, then the transaction rolls back', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query(sql`INSERT INTO prep VALUES (1000, 'gone')`);
        await tx.query(prepared(sql`SELECT 1 / (${0}::int) AS boom`, { generic: true }));
      }),
    ).rejects.toThrow(/division by zero/);
    expect(await db.query(sql`SELECT count(*)::int AS n FROM prep WHERE id = 1000`)).toEqual([{ n: 0 }]);
  });
});
