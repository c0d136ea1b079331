import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createTestDatabase, type DatabaseTemplate } from '../src/database';

/** Template databases made of parts: each part is built once per run, whatever stacks ask for it. */
describe('template databases', () => {
  // parts of this file's own (a key no other suite uses), each a schema with a table
  const tag = randomBytes(4).toString('hex');
  const builds: string[] = [];
  const part = (name: string) => ({
    key: `${tag}:${name}`,
    async build(url: string) {
      builds.push(name);
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`CREATE SCHEMA ${name}; CREATE TABLE ${name}.t (id int PRIMARY KEY); INSERT INTO ${name}.t VALUES (1)`);
      await c.end();
    },
  });
  const [a, b, c] = [part(`a_${tag}`), part(`b_${tag}`), part(`c_${tag}`)];

  const schemasOf = async (t: DatabaseTemplate) => {
    const db = await createTestDatabase({ template: t });
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE '%\\_${tag}' ORDER BY 1`);
    await client.end();
    await db.drop();
    return rows.map((r) => String(r.nspname).replace(`_${tag}`, ''));
  };

  test('when stacks ask for overlapping parts, then each part is built once and every database holds at least its parts', async () => {
    expect(await schemasOf({ parts: [a] })).toEqual(['a']);
    // a copy of the template with `a`, then `b` alone built
    expect(await schemasOf({ parts: [a, b] })).toEqual(['a', 'b']);
    // served by the template with both: nothing built
    expect(await schemasOf({ parts: [b] })).toEqual(['a', 'b']);
    expect(await schemasOf({ parts: [b, a] })).toEqual(['a', 'b']);
    // no finished template holds `c`: the largest one inside the wanted parts is copied, `c` built
    expect(await schemasOf({ parts: [c, a, b] })).toEqual(['a', 'b', 'c']);
    expect(builds.map((n) => n.replace(`_${tag}`, ''))).toEqual(['a', 'b', 'c']);
  });

  test('when a part fails to build, then no template is left behind and the next ask builds it again', async () => {
    let fail = true;
    const flaky = {
      key: `${tag}:flaky`,
      async build(url: string) {
        if (fail) throw new Error('migration failed');
        await part(`d_${tag}`).build(url);
      },
    };
    await expect(createTestDatabase({ template: { parts: [a, flaky] } })).rejects.toThrow('migration failed');
    fail = false;
    expect(await schemasOf({ parts: [a, flaky] })).toEqual(['a', 'd']);
  });
});
