import { Db } from '@inventory/rest';
import { prepared, sql } from '@inventory/filtering';
import { createTestDatabase } from '@inventory/testkit';

/** The plan cache mode a connection runs with, and whether it has the named statement prepared. */
const mode = sql`SELECT current_setting('plan_cache_mode') AS mode, (SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'p\\_%') AS prepared`;

describe('prepared statements', () => {
  let database: { url: string; drop(): Promise<void> };
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Db(database.url, 'public', 2);
    await db.query(sql`CREATE TABLE prep (id int PRIMARY KEY, v text)`);
    await db.query(sql`INSERT INTO prep SELECT i, 'v' || i FROM generate_series(1, 100) i`);
  });

  afterAll(async () => {
    await db.close();
    await database.drop();
  });

  const byId = (id: number) => sql`SELECT v, current_setting('plan_cache_mode') AS mode FROM prep WHERE id = ${id}`;

  test('when a generic statement runs outside a transaction, then it answers on a connection that forces generic plans, and the request pool keeps the default', async () => {
    expect(await db.query(prepared(byId(7), { generic: true }))).toEqual([{ v: 'v7', mode: 'force_generic_plan' }]);
    expect(await db.query(prepared(byId(8), { generic: true }))).toEqual([{ v: 'v8', mode: 'force_generic_plan' }]);
    const [plain] = await db.query(mode);
    expect(plain.mode).toBe('auto');
  });

  test('when a generic statement runs in a transaction, then the mode is forced for it alone and the statement stays prepared on that connection', async () => {
    const seen = await db.transaction(async (tx) => {
      const a = await tx.query(prepared(byId(3), { generic: true }));
      const b = await tx.query(prepared(byId(4), { generic: true }));
      const after = await tx.query(mode);
      return { a, b, after };
    });
    expect(seen.a).toEqual([{ v: 'v3', mode: 'force_generic_plan' }]);
    expect(seen.b).toEqual([{ v: 'v4', mode: 'force_generic_plan' }]);
    expect(seen.after[0]).toEqual({ mode: 'auto', prepared: 1 });
  });

  test('when a generic statement fails in a transaction, then the transaction rolls back and the connection is back to the default mode', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query(sql`INSERT INTO prep VALUES (1000, 'gone')`);
        await tx.query(prepared(sql`SELECT 1 / (${0}::int) AS boom`, { generic: true }));
      }),
    ).rejects.toThrow(/division by zero/);
    expect(await db.query(sql`SELECT count(*)::int AS n FROM prep WHERE id = 1000`)).toEqual([{ n: 0 }]);
    // both connections of the pool: neither kept the forced mode
    const modes = await Promise.all([db.transaction((tx) => tx.query(mode)), db.transaction((tx) => tx.query(mode))]);
    expect(modes.map(([m]) => m.mode)).toEqual(['auto', 'auto']);
  });

  test('when a statement is prepared without a generic plan, then it runs on the request pool with the default mode', async () => {
    expect(await db.query(prepared(byId(9)))).toEqual([{ v: 'v9', mode: 'auto' }]);
  });
});
