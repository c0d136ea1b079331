/**
 * Integration tests of the SQL that `buildFilter` generates, run against a real
 * PostgreSQL (one fresh database for this file). Each test asserts the exact set
 * of row ids a query string selects from a small table with NULLs, empty
 * strings, mixed case and LIKE wildcards in the data.
 */
import pg from 'pg';
import { createTestDatabase } from '@inventory/testkit';
import { ValidationError } from '@inventory/core';
import { type FilterDef, type Resolver, buildFilter, likeEscape, or, render, sql } from '@inventory/filtering';

let db: { url: string; drop(): Promise<void> };
let client: pg.Client;

/*
 * id | name             | slug        | status  | asn  | parent | created    | installed  | enabled
 *  1 | Alpha            | alpha       | active  | 100  | 1      | 2024-01-01 | 2024-02-29 | true
 *  2 | alpha            | alpha-2     | planned | 200  | 2      | 2024-02-01 | 2024-03-01 | false
 *  3 | ALPHA beta       | alpha-beta  | active  | NULL | NULL   | 2024-03-01 | NULL       | NULL
 *  4 | ''               | ''          | retired | 300  | 1      | NULL       | 2023-12-31 | true
 *  5 | NULL             | NULL        | NULL    | NULL | NULL   | 2024-04-01 | NULL       | false
 *  6 | 50%_off          | 50-off      | active  | 50   | 3      | 2024-05-01 | NULL       | true
 *  7 | 50 percent off   | fifty       | planned | 500  | 2      | 2024-06-01 | NULL       | true
 *  8 | Back\slash       | q"u,o{t}e   | active  | 0    | 3      | 2024-07-01 | NULL       | false
 *  9 | fifty_off        | fifty-off   | retired | -5   | NULL   | 2024-08-01 | NULL       | true
 *
 * parents: 1 site-a (east), 2 site-b (east), 3 site-c (west), 4 unused (west)
 */
const ALL = [1, 2, 3, 4, 5, 6, 7, 8, 9];
const without = (...ids: number[]) => ALL.filter((id) => !ids.includes(id));

beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query(`SET TIME ZONE 'UTC'`);
  await client.query(`
    CREATE TABLE parents (id bigserial PRIMARY KEY, slug text NOT NULL UNIQUE, region text NOT NULL);
    INSERT INTO parents (id, slug, region) VALUES (1, 'site-a', 'east'), (2, 'site-b', 'east'), (3, 'site-c', 'west'), (4, 'unused', 'west');
    CREATE TABLE items (
      id bigserial PRIMARY KEY,
      name text,
      slug text,
      status text,
      asn int,
      parent_id bigint NULL REFERENCES parents (id),
      created timestamptz,
      installed date,
      enabled boolean
    );
  `);
  const rows: unknown[][] = [
    [1, 'Alpha', 'alpha', 'active', 100, 1, '2024-01-01T00:00:00Z', '2024-02-29', true],
    [2, 'alpha', 'alpha-2', 'planned', 200, 2, '2024-02-01T00:00:00Z', '2024-03-01', false],
    [3, 'ALPHA beta', 'alpha-beta', 'active', null, null, '2024-03-01T00:00:00Z', null, null],
    [4, '', '', 'retired', 300, 1, null, '2023-12-31', true],
    [5, null, null, null, null, null, '2024-04-01T00:00:00Z', null, false],
    [6, '50%_off', '50-off', 'active', 50, 3, '2024-05-01T00:00:00Z', null, true],
    [7, '50 percent off', 'fifty', 'planned', 500, 2, '2024-06-01T00:00:00Z', null, true],
    [8, 'Back\\slash', 'q"u,o{t}e', 'active', 0, 3, '2024-07-01T00:00:00Z', null, false],
    [9, 'fifty_off', 'fifty-off', 'retired', -5, null, '2024-08-01T00:00:00Z', null, true],
  ];
  for (const row of rows) {
    await client.query(
      'INSERT INTO items (id, name, slug, status, asn, parent_id, created, installed, enabled) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
      row,
    );
  }
});

afterAll(async () => {
  await client?.end();
  await db?.drop();
});

// ---------------------------------------------------------------------------
// filter definitions over alias t

/** Maps keys to parent ids through the parents table; keys that match nothing are absent. */
function tableResolver(column: 'id' | 'slug' | 'region'): Resolver {
  return async (values) => {
    const match = column === 'id' ? sql`id = ANY(${values}::bigint[])` : column === 'slug' ? sql`slug = ANY(${values}::text[])` : sql`region = ANY(${values}::text[])`;
    const key = column === 'id' ? sql`id::text` : column === 'slug' ? sql`slug` : sql`region`;
    const { text, values: params } = render(sql`SELECT id, ${key} AS k FROM parents WHERE ${match}`);
    const res = await client.query<{ id: string; k: string }>(text, params);
    const out = new Map<string, number[]>();
    for (const row of res.rows) out.set(row.k, [...(out.get(row.k) ?? []), Number(row.id)]);
    return out;
  };
}

const defs: FilterDef[] = [
  { kind: 'integer', name: 'id', expr: sql`t.id` },
  { kind: 'string', name: 'name', expr: sql`t.name` },
  { kind: 'string', name: 'name_ci', expr: sql`t.name`, iexact: true },
  { kind: 'string', name: 'slug', expr: sql`t.slug` },
  { kind: 'choice', name: 'status', expr: sql`t.status`, choices: ['active', 'planned', 'retired'] },
  { kind: 'choice', name: 'status_single', expr: sql`t.status`, choices: ['active', 'planned', 'retired'], single: true },
  { kind: 'integer', name: 'asn', expr: sql`t.asn` },
  { kind: 'datetime', name: 'created', expr: sql`t.created` },
  { kind: 'date', name: 'installed', expr: sql`t.installed` },
  { kind: 'boolean', name: 'enabled', expr: sql`t.enabled` },
  { kind: 'relation', name: 'parent_id', expr: sql`t.parent_id`, keyType: 'integer', resolve: tableResolver('id') },
  { kind: 'relation', name: 'parent', expr: sql`t.parent_id`, keyType: 'string', resolve: tableResolver('slug') },
  { kind: 'relation', name: 'region', expr: sql`t.parent_id`, keyType: 'string', resolve: tableResolver('region') },
  {
    kind: 'method',
    name: 'q',
    apply: (values) => {
      const pattern = `%${likeEscape(values[values.length - 1].trim())}%`;
      return values[values.length - 1].trim() ? or([sql`t.name ILIKE ${pattern}`, sql`t.slug ILIKE ${pattern}`]) : undefined;
    },
  },
];

/** Ids selected by a query string (or explicit pairs, to avoid URL-encoding noise). */
async function ids(query: string | [string, string][]): Promise<number[]> {
  const { where } = await buildFilter(defs, new URLSearchParams(query));
  const { text, values } = render(sql`SELECT id FROM items t WHERE ${where} ORDER BY id`);
  const res = await client.query<{ id: string }>(text, values);
  return res.rows.map((row) => Number(row.id));
}

async function rejected(query: string): Promise<unknown> {
  const err = await buildFilter(defs, new URLSearchParams(query)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationError);
  return (err as ValidationError).errors;
}

// ---------------------------------------------------------------------------

describe('string filters', () => {
  test('when no filter is given, then every row is returned', async () => {
    expect(await ids('')).toEqual(ALL);
  });

  test('when an exact value is given, then the match is case-sensitive', async () => {
    expect(await ids('name=alpha')).toEqual([2]);
    expect(await ids('name=Alpha')).toEqual([1]);
    expect(await ids('name=ALPHA')).toEqual([]);
  });

  test('when exact values are repeated, then they are OR-ed', async () => {
    expect(await ids('name=alpha&name=Alpha&name=missing')).toEqual([1, 2]);
  });

  test('when __n is given, then only exact (case-sensitive) matches are excluded and NULL rows are kept', async () => {
    expect(await ids('name__n=alpha')).toEqual(without(2));
    expect(await ids('name__n=alpha&name__n=Alpha')).toEqual(without(1, 2));
  });

  test('when __ic is given, then the containment is case-insensitive and NULL rows are not matched', async () => {
    expect(await ids('name__ic=alpha')).toEqual([1, 2, 3]);
    expect(await ids('name__ic=ALPHA&name__ic=OFF')).toEqual([1, 2, 3, 6, 7, 9]);
  });

  test('when __nic is given, then rows containing the text are excluded and NULL and empty rows are kept', async () => {
    expect(await ids('name__nic=alpha')).toEqual([4, 5, 6, 7, 8, 9]);
    expect(await ids('name__nic=alpha&name__nic=off')).toEqual([4, 5, 8]);
  });

  test('when __isw / __nisw is given, then starts-with is case-insensitive and the negation keeps NULL', async () => {
    expect(await ids('name__isw=AL')).toEqual([1, 2, 3]);
    expect(await ids('name__isw=50')).toEqual([6, 7]);
    expect(await ids('name__nisw=al')).toEqual([4, 5, 6, 7, 8, 9]);
  });

  test('when __iew / __niew is given, then ends-with is case-insensitive and the negation keeps NULL', async () => {
    expect(await ids('name__iew=BETA')).toEqual([3]);
    expect(await ids('name__iew=off')).toEqual([6, 7, 9]);
    expect(await ids('name__niew=off')).toEqual([1, 2, 3, 4, 5, 8]);
  });

  test('when __ie / __nie is given, then equality is case-insensitive and the negation keeps NULL and empty rows', async () => {
    expect(await ids('name__ie=ALPHA')).toEqual([1, 2]);
    expect(await ids('name__ie=alpha&name__ie=FIFTY_OFF')).toEqual([1, 2, 9]);
    expect(await ids('name__nie=alpha')).toEqual([3, 4, 5, 6, 7, 8, 9]);
  });

  test('when __empty=true / false is given, then it selects empty-or-NULL / neither; a junk value filters nothing', async () => {
    expect(await ids('name__empty=true')).toEqual([4, 5]);
    expect(await ids('name__empty=True')).toEqual([4, 5]);
    expect(await ids('name__empty=false')).toEqual([1, 2, 3, 6, 7, 8, 9]);
    expect(await ids('slug__empty=true')).toEqual([4, 5]);
    expect(await ids('name__empty=perhaps')).toEqual(ALL);
  });

  test('when the literal null is given, then it selects NULL rows, alone or OR-ed with values', async () => {
    expect(await ids('name=null')).toEqual([5]);
    expect(await ids('name=null&name=alpha')).toEqual([2, 5]);
    expect(await ids('name_ci=ALPHA&name_ci=null')).toEqual([1, 2, 5]);
  });

  test('when null is excluded with __n, then NULL rows are dropped as well', async () => {
    expect(await ids('name__n=null')).toEqual(without(5));
    expect(await ids('name__n=null&name__n=alpha')).toEqual(without(2, 5));
  });

  test('when the filter is declared iexact, then the base parameter is case-insensitive and __n stays case-sensitive', async () => {
    expect(await ids('name_ci=ALPHA')).toEqual([1, 2]);
    expect(await ids('name_ci__n=alpha')).toEqual(without(2));
  });

  test('when a blank value is given, then it is dropped and an all-blank filter returns everything', async () => {
    expect(await ids('name=')).toEqual(ALL);
    expect(await ids('name=&name=alpha')).toEqual([2]);
    expect(await ids('name__ic=')).toEqual(ALL);
  });

  test('when values contain characters special to array literals (quotes, commas, braces), then they still match exactly', async () => {
    expect(await ids([['slug', 'q"u,o{t}e']])).toEqual([8]);
    expect(await ids([['slug__n', 'q"u,o{t}e']])).toEqual(without(8));
  });
});

describe('LIKE wildcards in values', () => {
  test('when % is searched for, then it is a literal percent sign, not "anything"', async () => {
    expect(await ids([['name__ic', '%']])).toEqual([6]);
    expect(await ids([['name__nic', '%']])).toEqual(without(6));
    expect(await ids([['name__isw', '50%']])).toEqual([6]);
  });

  test('when _ is searched for, then it is a literal underscore, not "any one character"', async () => {
    expect(await ids([['name__ic', '_']])).toEqual([6, 9]);
    expect(await ids([['name__iew', '_off']])).toEqual([6, 9]);
    expect(await ids([['name__niew', '_off']])).toEqual(without(6, 9));
  });

  test('when a whole value with wildcards is compared case-insensitively, then only the literal value matches', async () => {
    // unescaped, '50%_off' would also match '50 percent off' (row 7)
    expect(await ids([['name__ie', '50%_OFF']])).toEqual([6]);
    expect(await ids([['name__nie', '50%_off']])).toEqual(without(6));
    expect(await ids([['name_ci', '50%_OFF']])).toEqual([6]);
    expect(await ids([['name', '50%_off']])).toEqual([6]);
  });

  test('when a backslash is searched for, then it is literal too', async () => {
    expect(await ids([['name__ic', 'k\\s']])).toEqual([8]);
    expect(await ids([['name__ie', 'BACK\\SLASH']])).toEqual([8]);
    expect(await ids([['name', 'Back\\slash']])).toEqual([8]);
    expect(await ids([['name__ic', '\\']])).toEqual([8]);
  });
});

describe('numeric, date and date-time filters', () => {
  test('when exact values are given, then they are OR-ed', async () => {
    expect(await ids('asn=100')).toEqual([1]);
    expect(await ids('asn=100&asn=300&asn=7')).toEqual([1, 4]);
    expect(await ids('id=1&id=9')).toEqual([1, 9]);
  });

  test('when __n is given, then the values are excluded and NULL rows kept', async () => {
    expect(await ids('asn__n=100')).toEqual(without(1));
    expect(await ids('asn__n=100&asn__n=0')).toEqual(without(1, 8));
  });

  test('when __lt / __lte / __gt / __gte are given, then NULL rows never match', async () => {
    expect(await ids('asn__lt=100')).toEqual([6, 8, 9]);
    expect(await ids('asn__lte=100')).toEqual([1, 6, 8, 9]);
    expect(await ids('asn__gt=200')).toEqual([4, 7]);
    expect(await ids('asn__gte=200')).toEqual([2, 4, 7]);
    expect(await ids('asn__lt=0')).toEqual([9]);
  });

  test('when a comparison is repeated, then the repeats are OR-ed (AND would give only [9])', async () => {
    expect(await ids('asn__lt=0&asn__lt=60')).toEqual([6, 8, 9]);
    expect(await ids('asn__gt=300&asn__gt=450')).toEqual([7]);
  });

  test('when two comparisons are different parameters, then they are AND-ed into a range', async () => {
    expect(await ids('asn__gte=50&asn__lte=200')).toEqual([1, 2, 6]);
    expect(await ids('id__gt=2&id__lt=5')).toEqual([3, 4]);
  });

  test('when __empty is given on a numeric filter, then it is an IS NULL test', async () => {
    expect(await ids('asn__empty=true')).toEqual([3, 5]);
    expect(await ids('asn__empty=false')).toEqual(without(3, 5));
    expect(await ids('id__empty=true')).toEqual([]);
  });

  test('when a blank numeric value is given, then it is dropped instead of failing', async () => {
    expect(await ids('asn=')).toEqual(ALL);
    expect(await ids('asn=&asn=50')).toEqual([6]);
  });

  test('when date-times are compared, then offsets and a space separator are honoured', async () => {
    expect(await ids([['created', '2024-03-01T00:00:00+00:00']])).toEqual([3]);
    expect(await ids([['created', '2024-03-01T01:00:00+01:00']])).toEqual([3]);
    expect(await ids([['created__gte', '2024-06-01 00:00:00Z']])).toEqual([7, 8, 9]);
    expect(await ids([['created__lt', '2024-02-01T00:00:00Z']])).toEqual([1]);
    expect(await ids([['created__n', '2024-03-01T00:00:00Z']])).toEqual(without(3));
    expect(await ids('created__empty=true')).toEqual([4]);
  });

  test('when dates are compared, then a leap day is accepted and NULL rows never match a comparison', async () => {
    expect(await ids('installed=2024-02-29')).toEqual([1]);
    expect(await ids('installed__gte=2024-01-01')).toEqual([1, 2]);
    expect(await ids('installed__lt=2024-02-29')).toEqual([4]);
    expect(await ids('installed__empty=false')).toEqual([1, 2, 4]);
  });

  test('when a date that does not exist is given, then buildFilter rejects it before PostgreSQL would fail the cast', async () => {
    // PostgreSQL itself raises on the cast, which would otherwise surface as a 500
    await expect(client.query(`SELECT '2024-02-30'::date`)).rejects.toThrow(/out of range/);
    expect(await rejected('installed=2024-02-30')).toEqual({ installed: ['Enter a valid date.'] });
    expect(await rejected('created__gt=2024-04-31T00:00:00Z')).toEqual({ created__gt: ['Enter a valid date/time.'] });
  });
});

describe('boolean filters', () => {
  test('when true/True is given, then only true rows match', async () => {
    expect(await ids('enabled=true')).toEqual([1, 4, 6, 7, 9]);
    expect(await ids('enabled=True')).toEqual([1, 4, 6, 7, 9]);
  });

  test('when false/False is given, then only false rows match (NULL is neither)', async () => {
    expect(await ids('enabled=false')).toEqual([2, 5, 8]);
    expect(await ids('enabled=False')).toEqual([2, 5, 8]);
  });

  test('when a junk value is given, then no condition is applied', async () => {
    expect(await ids('enabled=perhaps')).toEqual(ALL);
  });
});

describe('choice filters', () => {
  test('when choices are given, then they are OR-ed', async () => {
    expect(await ids('status=active')).toEqual([1, 3, 6, 8]);
    expect(await ids('status=active&status=retired')).toEqual([1, 3, 4, 6, 8, 9]);
  });

  test('when __n is given, then those choices are excluded and NULL rows kept', async () => {
    expect(await ids('status__n=active')).toEqual([2, 4, 5, 7, 9]);
    expect(await ids('status__n=active&status__n=planned')).toEqual([4, 5, 9]);
  });

  test('when null is given, then it selects / excludes NULL', async () => {
    expect(await ids('status=null')).toEqual([5]);
    expect(await ids('status=null&status=retired')).toEqual([4, 5, 9]);
    expect(await ids('status__n=null')).toEqual(without(5));
  });

  test('when the filter is single-valued, then only the last value is honoured', async () => {
    expect(await ids('status_single=active&status_single=planned')).toEqual([2, 7]);
  });

  test('when an unknown choice is given, then it is a 400', async () => {
    expect(await rejected('status=Active')).toEqual({ status: ['Select a valid choice. Active is not one of the available choices.'] });
  });
});

describe('relation filters', () => {
  test('when ids are given, then rows pointing at any of them match', async () => {
    expect(await ids('parent_id=1')).toEqual([1, 4]);
    expect(await ids('parent_id=1&parent_id=3')).toEqual([1, 4, 6, 8]);
  });

  test('when an existing but unreferenced id is given, then nothing matches (no error)', async () => {
    expect(await ids('parent_id=4')).toEqual([]);
  });

  test('when slugs are given, then the resolver maps them to ids over the parent table', async () => {
    expect(await ids('parent=site-b')).toEqual([2, 7]);
    expect(await ids('parent=site-a&parent=site-c')).toEqual([1, 4, 6, 8]);
  });

  test('when a key resolves to several parents, then rows pointing at any of them match', async () => {
    expect(await ids('region=east')).toEqual([1, 2, 4, 7]);
    expect(await ids('region__n=east')).toEqual([3, 5, 6, 8, 9]);
  });

  test('when __n is given, then those parents are excluded and rows without a parent kept', async () => {
    expect(await ids('parent_id__n=1')).toEqual([2, 3, 5, 6, 7, 8, 9]);
    expect(await ids('parent__n=site-c')).toEqual([1, 2, 3, 4, 5, 7, 9]);
  });

  test('when null is given, then rows with an empty relation match; __n=null excludes them', async () => {
    expect(await ids('parent_id=null')).toEqual([3, 5, 9]);
    expect(await ids('parent=null')).toEqual([3, 5, 9]);
    expect(await ids('parent_id=null&parent_id=2')).toEqual([2, 3, 5, 7, 9]);
    expect(await ids('parent_id__n=null')).toEqual([1, 2, 4, 6, 7, 8]);
    expect(await ids('parent__n=null&parent__n=site-a')).toEqual([2, 6, 7, 8]);
  });

  test('when an unknown id or slug is given, then it is a 400 rather than an empty result', async () => {
    expect(await rejected('parent_id=999')).toEqual({ parent_id: ['Select a valid choice. 999 is not one of the available choices.'] });
    expect(await rejected('parent=site-a&parent=nowhere')).toEqual({
      parent: ['Select a valid choice. nowhere is not one of the available choices.'],
    });
    expect(await rejected('parent_id=abc')).toEqual({ parent_id: ['Select a valid choice. abc is not one of the available choices.'] });
  });
});

describe('combinations', () => {
  test('when different parameters are given, then they are AND-ed', async () => {
    expect(await ids('status=active&name__ic=a')).toEqual([1, 3, 8]);
    expect(await ids('status=active&status=planned&asn__gte=100')).toEqual([1, 2, 7]);
    expect(await ids('parent=site-b&enabled=true&name__nic=alpha')).toEqual([7]);
  });

  test('when a method filter is combined with field filters, then it is AND-ed like any other', async () => {
    expect(await ids('q=fifty')).toEqual([7, 9]);
    expect(await ids('q=fifty&status=retired')).toEqual([9]);
    expect(await ids([['q', '%']])).toEqual([6]);
  });

  test('when reserved and unknown parameters are mixed in, then they do not change the result', async () => {
    expect(await ids('name__ic=alpha&limit=1&offset=5&ordering=-name&brief=1&format=json&exclude=config_context&bogus=1')).toEqual([1, 2, 3]);
  });
});
