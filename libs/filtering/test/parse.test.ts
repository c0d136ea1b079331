/**
 * Unit tests (no database) of the SQL builder, the value parsers and
 * `buildFilter` (NetBox 3.7 filter semantics: dcim-circuits.md §0.7,
 * api-conventions-users-extras.md §A.7).
 */
import { ValidationError } from '@inventory/core';
import {
  type FilterDef,
  type Resolver,
  type Sql,
  FilterValueError,
  RESERVED_PARAMS,
  and,
  buildFilter,
  empty,
  ident,
  join,
  likeEscape,
  lookupsFor,
  or,
  parseBoolean,
  parseDate,
  parseDateTime,
  parseInteger,
  parseNumber,
  quoteIdent,
  raw,
  render,
  sql,
} from '@inventory/filtering';

// ---------------------------------------------------------------------------
// helpers

/** Rendered text and values of a fragment. */
const r = (s: Sql) => render(s);

/** The ValidationError a promise rejects with (fails the test otherwise). */
async function rejection(p: Promise<unknown>): Promise<ValidationError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('expected a ValidationError');
}

const PARENT_IDS = new Map<string, number[]>([
  ['1', [1]],
  ['2', [2]],
  ['3', [3]],
]);
const PARENT_SLUGS = new Map<string, number[]>([
  ['site-a', [1]],
  ['site-b', [2]],
  ['east', [1, 2]],
]);

function mapResolver(known: Map<string, number[]>): jest.MockedFunction<Resolver> {
  return jest.fn(async (values: string[]) => {
    const out = new Map<string, number[]>();
    for (const v of values) {
      const hit = known.get(v);
      if (hit) out.set(v, hit);
    }
    return out;
  });
}

interface Fixture {
  defs: FilterDef[];
  byId: jest.MockedFunction<Resolver>;
  bySlug: jest.MockedFunction<Resolver>;
  q: jest.Mock;
  childCount: jest.Mock;
}

function fixture(): Fixture {
  const byId = mapResolver(PARENT_IDS);
  const bySlug = mapResolver(PARENT_SLUGS);
  const q = jest.fn((values: string[]) => (values[0].trim() ? sql`t.name ILIKE ${`%${likeEscape(values[0])}%`}` : undefined));
  const childCount = jest.fn(async (values: string[], lookup: string | null) =>
    lookup === 'gt' ? sql`t.children > ${Number(values[0])}` : sql`t.children = ${Number(values[0])}`,
  );
  const defs: FilterDef[] = [
    { kind: 'integer', name: 'id', expr: sql`t.id` },
    { kind: 'string', name: 'name', expr: sql`t.name` },
    { kind: 'string', name: 'serial', expr: sql`t.serial`, iexact: true },
    { kind: 'string', name: 'label', expr: sql`t.label`, lookups: false },
    { kind: 'integer', name: 'asn', expr: sql`t.asn` },
    { kind: 'integer', name: 'position', expr: sql`t.position`, lookups: false },
    { kind: 'decimal', name: 'weight', expr: sql`t.weight` },
    { kind: 'date', name: 'installed', expr: sql`t.installed` },
    { kind: 'datetime', name: 'created', expr: sql`t.created` },
    { kind: 'boolean', name: 'enabled', expr: sql`t.enabled` },
    { kind: 'choice', name: 'status', expr: sql`t.status`, choices: ['active', 'planned', 'retired'] },
    { kind: 'choice', name: 'face', expr: sql`t.face`, choices: ['front', 'rear'], single: true },
    {
      kind: 'choice',
      name: 'width',
      expr: sql`t.width`,
      choices: [19, 23],
      coerce: (v) => (/^\d+$/.test(v) ? Number(v) : undefined),
    },
    { kind: 'relation', name: 'parent_id', expr: sql`t.parent_id`, keyType: 'integer', resolve: byId },
    { kind: 'relation', name: 'parent', expr: sql`t.parent_id`, keyType: 'string', resolve: bySlug },
    { kind: 'method', name: 'q', apply: q },
    { kind: 'method', name: 'child_count', lookups: ['gt'], valueType: 'integer', apply: childCount },
  ];
  return { defs, byId, bySlug, q, childCount };
}

/** Runs buildFilter over a query string (or explicit pairs) and renders the condition. */
async function filter(query: string | [string, string][], opts?: Parameters<typeof buildFilter>[2], f: Fixture = fixture()) {
  const result = await buildFilter(f.defs, new URLSearchParams(query), opts);
  return { ...render(result.where), ignored: result.ignored };
}

/** The error body of a query string that must be rejected. */
async function errorsOf(query: string | [string, string][], opts?: Parameters<typeof buildFilter>[2], f: Fixture = fixture()) {
  const err = await rejection(buildFilter(f.defs, new URLSearchParams(query), opts));
  expect(err.status).toBe(400);
  return err.errors;
}

// ---------------------------------------------------------------------------
// sql.ts

describe('render() and fragments', () => {
  test('when values are interpolated, then they become $1..$n in order and never touch the text', () => {
    const out = r(sql`SELECT * FROM t WHERE a = ${1} AND b = ${"x'; DROP TABLE t; --"} AND c = ${null}`);
    expect(out.text).toBe('SELECT * FROM t WHERE a = $1 AND b = $2 AND c = $3');
    expect(out.values).toEqual([1, "x'; DROP TABLE t; --", null]);
  });

  test('when fragments are nested, then their parameters are renumbered into one sequence', () => {
    const inner = sql`b = ${2} AND c = ${3}`;
    const middle = sql`(${inner}) OR d = ${4}`;
    const out = r(sql`a = ${1} AND (${middle}) AND e = ${5}`);
    expect(out.text).toBe('a = $1 AND ((b = $2 AND c = $3) OR d = $4) AND e = $5');
    expect(out.values).toEqual([1, 2, 3, 4, 5]);
  });

  test('when a fragment is nested at the very start or end, then the text is joined without gaps', () => {
    const out = r(sql`${sql`x = ${1}`}${sql` AND y = ${2}`}`);
    expect(out.text).toBe('x = $1 AND y = $2');
    expect(out.values).toEqual([1, 2]);
  });

  test('when a parameter-less fragment (raw, ident) is nested, then it is inlined and numbering continues', () => {
    const out = r(sql`SELECT ${ident('we"ird')} FROM ${raw('items')} t WHERE a = ${1} ${raw('AND')} b = ${2}`);
    expect(out.text).toBe('SELECT "we""ird" FROM items t WHERE a = $1 AND b = $2');
    expect(out.values).toEqual([1, 2]);
  });

  test('when an array is interpolated, then it is one parameter', () => {
    const out = r(sql`id = ANY(${[1, 2, 3]}::bigint[])`);
    expect(out.text).toBe('id = ANY($1::bigint[])');
    expect(out.values).toEqual([[1, 2, 3]]);
  });

  test('when the same fragment is used twice, then its values appear twice with distinct numbers', () => {
    const f = sql`x = ${7}`;
    const out = r(sql`${f} OR ${f}`);
    expect(out.text).toBe('x = $1 OR x = $2');
    expect(out.values).toEqual([7, 7]);
  });

  test('when join() is used, then parts are separated and parameters numbered across parts', () => {
    const out = r(join([sql`a = ${1}`, sql`b = ${2}`, raw('c IS NULL'), sql`d = ${3}`], ', '));
    expect(out.text).toBe('a = $1, b = $2, c IS NULL, d = $3');
    expect(out.values).toEqual([1, 2, 3]);
    expect(r(join([], ', '))).toEqual({ text: '', values: [] });
  });

  test('when and()/or() get no real parts, then they are TRUE/FALSE; one part is returned bare; several are parenthesised', () => {
    expect(r(and([]))).toEqual({ text: 'TRUE', values: [] });
    expect(r(and([empty, raw('  ')]))).toEqual({ text: 'TRUE', values: [] });
    expect(r(or([]))).toEqual({ text: 'FALSE', values: [] });
    expect(r(and([empty, sql`a = ${1}`]))).toEqual({ text: 'a = $1', values: [1] });
    expect(r(or([sql`a = ${1}`, sql`b = ${2}`]))).toEqual({ text: '(a = $1 OR b = $2)', values: [1, 2] });
    expect(r(and([sql`a = ${1}`, or([sql`b = ${2}`, sql`c = ${3}`])]))).toEqual({
      text: '(a = $1 AND (b = $2 OR c = $3))',
      values: [1, 2, 3],
    });
  });

  test('when a fragment carries only a parameter whose value is empty text, then it is not treated as empty', () => {
    expect(sql`${''}`.isEmpty).toBe(false);
    expect(empty.isEmpty).toBe(true);
  });

  test('when an identifier contains quotes, then quoteIdent doubles them', () => {
    expect(quoteIdent('plain')).toBe('"plain"');
    expect(quoteIdent('a"b')).toBe('"a""b"');
  });
});

describe('likeEscape', () => {
  test('when a value contains %, _ or backslash, then each is escaped with a backslash', () => {
    expect(likeEscape('50%_off')).toBe('50\\%\\_off');
    expect(likeEscape('a\\b')).toBe('a\\\\b');
    expect(likeEscape('\\%')).toBe('\\\\\\%');
  });

  test('when a value has no wildcard characters, then it is unchanged', () => {
    expect(likeEscape('plain text*?[]')).toBe('plain text*?[]');
    expect(likeEscape('')).toBe('');
  });
});

// ---------------------------------------------------------------------------
// values.ts

describe('value parsers', () => {
  test('when parseInteger gets a whole number, then it returns it (sign and surrounding blanks allowed)', () => {
    expect(parseInteger('42')).toBe(42);
    expect(parseInteger('-7')).toBe(-7);
    expect(parseInteger('0')).toBe(0);
    expect(parseInteger(' 5 ')).toBe(5);
  });

  test.each(['', 'abc', '1.5', '1e3', '0x10', '12abc', '9007199254740993', 'null'])(
    'when parseInteger gets %p, then it throws "Enter a whole number."',
    (value) => {
      expect(() => parseInteger(value)).toThrow(FilterValueError);
      expect(() => parseInteger(value)).toThrow('Enter a whole number.');
    },
  );

  test('when parseNumber gets a decimal, then it returns it; junk throws "Enter a number."', () => {
    expect(parseNumber('1.25')).toBe(1.25);
    expect(parseNumber('-3')).toBe(-3);
    for (const bad of ['', ' ', 'abc', 'Infinity', 'NaN']) expect(() => parseNumber(bad)).toThrow('Enter a number.');
  });

  test.each([
    ['true', true],
    ['True', true],
    ['1', true],
    ['false', false],
    ['False', false],
    ['0', false],
  ])('when parseBoolean gets %p, then it returns %p', (value, expected) => {
    expect(parseBoolean(value)).toBe(expected);
  });

  test.each(['', 'yes', 'no', 'on', 'off', 'null', '2', 't', 'f'])('when parseBoolean gets %p, then it returns undefined', (value) => {
    expect(parseBoolean(value)).toBeUndefined();
  });

  test('when parseDate gets an ISO date, then it returns it unchanged (leap day included)', () => {
    expect(parseDate('2024-01-31')).toBe('2024-01-31');
    expect(parseDate('2024-02-29')).toBe('2024-02-29');
  });

  test.each(['', '2024-1-1', '01/31/2024', '2024-13-01', '2024-00-10', '2024-01-32', '2024-02-30', '2023-02-29', '2024-04-31', 'today', '2024-01-01T00:00:00'])(
    'when parseDate gets %p, then it throws "Enter a valid date."',
    (value) => {
      expect(() => parseDate(value)).toThrow(FilterValueError);
      expect(() => parseDate(value)).toThrow('Enter a valid date.');
    },
  );

  test('when parseDateTime gets ISO date-times, then it normalises a space separator to T and keeps the offset', () => {
    expect(parseDateTime('2024-01-31T10:20:30Z')).toBe('2024-01-31T10:20:30Z');
    expect(parseDateTime('2024-01-31 10:20')).toBe('2024-01-31T10:20');
    expect(parseDateTime('2024-01-31T10:20:30.123456+01:00')).toBe('2024-01-31T10:20:30.123456+01:00');
    expect(parseDateTime('2024-01-31T10:20:30-0500')).toBe('2024-01-31T10:20:30-0500');
    expect(parseDateTime('2024-01-31')).toBe('2024-01-31');
  });

  test.each(['', 'yesterday', '2024-01-31T25:00:00', '2024-01-31T10:61', '2024-13-01T00:00', '2024-02-30T00:00:00', '31/01/2024 10:00'])(
    'when parseDateTime gets %p, then it throws "Enter a valid date/time."',
    (value) => {
      expect(() => parseDateTime(value)).toThrow(FilterValueError);
      expect(() => parseDateTime(value)).toThrow('Enter a valid date/time.');
    },
  );
});

// ---------------------------------------------------------------------------
// lookups per kind

describe('lookupsFor', () => {
  const e = sql`t.x`;
  test('when the filter is a string, then it has n ic nic isw nisw iew niew ie nie empty', () => {
    expect([...lookupsFor({ kind: 'string', name: 'x', expr: e })].sort()).toEqual(
      ['n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie', 'empty'].sort(),
    );
    expect([...lookupsFor({ kind: 'string', name: 'x', expr: e, iexact: true })]).toHaveLength(10);
  });

  test.each(['integer', 'decimal', 'date', 'datetime'] as const)('when the filter is %s, then it has n lt lte gt gte empty', (kind) => {
    expect([...lookupsFor({ kind, name: 'x', expr: e })].sort()).toEqual(['empty', 'gt', 'gte', 'lt', 'lte', 'n']);
  });

  test('when the filter is a choice or a relation, then it has n only', () => {
    expect(lookupsFor({ kind: 'choice', name: 'x', expr: e, choices: ['a'] })).toEqual(['n']);
    const resolve: Resolver = async () => new Map();
    expect(lookupsFor({ kind: 'relation', name: 'x', expr: e, keyType: 'string', resolve })).toEqual(['n']);
  });

  test('when the filter is boolean, then it has no lookups', () => {
    expect(lookupsFor({ kind: 'boolean', name: 'x', expr: e })).toEqual([]);
  });

  test('when a method filter declares lookups, then exactly those are accepted (none by default)', () => {
    expect(lookupsFor({ kind: 'method', name: 'x', apply: () => undefined })).toEqual([]);
    expect(lookupsFor({ kind: 'method', name: 'x', lookups: ['n', 'gt'], apply: () => undefined })).toEqual(['n', 'gt']);
  });

  test('when lookups are switched off on a string or numeric filter, then it has none', () => {
    expect(lookupsFor({ kind: 'string', name: 'x', expr: e, lookups: false })).toEqual([]);
    expect(lookupsFor({ kind: 'integer', name: 'x', expr: e, lookups: false })).toEqual([]);
  });
});

// ---------------------------------------------------------------------------
// buildFilter

describe('buildFilter: combining parameters', () => {
  test('when there are no parameters, then the condition is TRUE and nothing is ignored', async () => {
    expect(await filter('')).toEqual({ text: 'TRUE', values: [], ignored: [] });
  });

  test('when a parameter is repeated, then its values are OR-ed in one condition', async () => {
    const out = await filter('name=a&name=b');
    expect(out.text).toBe('t.name = ANY($1::text[])');
    expect(out.values).toEqual([['a', 'b']]);
  });

  test('when repeats of a parameter are interleaved with others, then they are still collected into one condition', async () => {
    const out = await filter('name=a&asn=5&name=b');
    expect(out.text).toBe('(t.name = ANY($1::text[]) AND t.asn = ANY($2::bigint[]))');
    expect(out.values).toEqual([['a', 'b'], [5]]);
  });

  test('when different parameters are given, then their conditions are AND-ed', async () => {
    const out = await filter('name=a&status=active&asn__gt=10');
    expect(out.text).toBe('(t.name = ANY($1::text[]) AND t.status = ANY($2::text[]) AND t.asn > $3::bigint)');
    expect(out.values).toEqual([['a'], ['active'], 10]);
  });

  test('when reserved parameters (limit, offset, brief, exclude, ordering, format) are given, then they are neither filters nor ignored', async () => {
    const query = 'limit=10&offset=20&brief=1&exclude=config_context&ordering=-name&format=json';
    expect(await filter(query)).toEqual({ text: 'TRUE', values: [], ignored: [] });
    expect(await filter(query, { strict: true })).toEqual({ text: 'TRUE', values: [], ignored: [] });
    for (const p of ['limit', 'offset', 'brief', 'exclude', 'ordering', 'format']) expect(RESERVED_PARAMS.has(p)).toBe(true);
  });

  test('when extra reserved parameters are passed, then they are skipped too', async () => {
    expect(await filter('search=x', { extraReserved: ['search'] })).toEqual({ text: 'TRUE', values: [], ignored: [] });
  });

  test('when unknown parameters are given, then they are reported once each in ignored, in order, and do not filter', async () => {
    const out = await filter('foo=1&name=a&bar__ic=x&foo=2&assigned_object=3');
    expect(out.ignored).toEqual(['foo', 'bar__ic', 'assigned_object']);
    expect(out.text).toBe('t.name = ANY($1::text[])');
    expect(out.values).toEqual([['a']]);
  });

  test('when strict filtering is on and unknown parameters are given, then it is a 400 keyed by each unknown parameter', async () => {
    expect(await errorsOf('foo=1&name=a&bar=2', { strict: true })).toEqual({
      foo: ['Unknown filter parameter.'],
      bar: ['Unknown filter parameter.'],
    });
  });

  test('when strict filtering is on and all parameters are known, then it filters normally', async () => {
    const out = await filter('name=a&limit=5', { strict: true });
    expect(out.text).toBe('t.name = ANY($1::text[])');
  });

  test('when an unknown lookup is used on a known field, then it is a 400 keyed by the parameter', async () => {
    expect(await errorsOf('name__xyz=a')).toEqual({ name__xyz: ['Unknown lookup "xyz" for filter "name".'] });
  });

  test('when a lookup not generated for the kind is used, then it is rejected (boolean __n, choice __ic, numeric __ic, lookups switched off)', async () => {
    const errors = await errorsOf('enabled__n=true&status__ic=act&asn__ic=1&label__ic=x&position__gt=1&parent__gt=1');
    expect(Object.keys(errors).sort()).toEqual(['asn__ic', 'enabled__n', 'label__ic', 'parent__gt', 'position__gt', 'status__ic']);
    expect((errors as Record<string, string[]>).enabled__n).toEqual(['Unknown lookup "n" for filter "enabled".']);
  });

  test('when several parameters are invalid, then every error is reported together', async () => {
    expect(await errorsOf('id=x&asn__gt=1.5&status=bogus&name=ok&foo=1')).toEqual({
      id: ['Enter a whole number.'],
      asn__gt: ['Enter a whole number.'],
      status: ['Select a valid choice. bogus is not one of the available choices.'],
    });
  });
});

describe('buildFilter: string filters', () => {
  test('when an exact value is given, then it is a case-sensitive = ANY over text', async () => {
    expect(await filter('name=Foo')).toMatchObject({ text: 't.name = ANY($1::text[])', values: [['Foo']] });
  });

  test('when __n is given, then NULL rows are kept (Django exclude semantics)', async () => {
    expect(await filter('name__n=a&name__n=b')).toMatchObject({
      text: '(t.name IS NULL OR NOT (t.name = ANY($1::text[])))',
      values: [['a', 'b']],
    });
  });

  test.each([
    ['ic', 't.name ILIKE ANY($1::text[])', ['%a\\%b%', '%c%']],
    ['isw', 't.name ILIKE ANY($1::text[])', ['a\\%b%', 'c%']],
    ['iew', 't.name ILIKE ANY($1::text[])', ['%a\\%b', '%c']],
    ['ie', 't.name ILIKE ANY($1::text[])', ['a\\%b', 'c']],
    ['nic', 'NOT COALESCE(t.name ILIKE ANY($1::text[]), FALSE)', ['%a\\%b%', '%c%']],
    ['nisw', 'NOT COALESCE(t.name ILIKE ANY($1::text[]), FALSE)', ['a\\%b%', 'c%']],
    ['niew', 'NOT COALESCE(t.name ILIKE ANY($1::text[]), FALSE)', ['%a\\%b', '%c']],
    ['nie', 'NOT COALESCE(t.name ILIKE ANY($1::text[]), FALSE)', ['a\\%b', 'c']],
  ])('when __%s is repeated, then one ILIKE ANY over escaped patterns is built', async (lookup, text, patterns) => {
    expect(await filter(`name__${lookup}=a%25b&name__${lookup}=c`)).toMatchObject({ text, values: [patterns] });
  });

  test('when __empty is true/True/false, then it tests empty-or-NULL text; a junk value applies no condition', async () => {
    expect(await filter('name__empty=true')).toMatchObject({ text: "(t.name IS NULL OR t.name = '')", values: [] });
    expect(await filter('name__empty=True')).toMatchObject({ text: "(t.name IS NULL OR t.name = '')" });
    expect(await filter('name__empty=false')).toMatchObject({ text: "(t.name IS NOT NULL AND t.name <> '')", values: [] });
    expect(await filter('name__empty=maybe')).toMatchObject({ text: 'TRUE', values: [] });
  });

  test('when the literal null is given, then it selects NULL (alone or with other values)', async () => {
    expect(await filter('name=null')).toMatchObject({ text: 't.name IS NULL', values: [] });
    expect(await filter('name=a&name=null')).toMatchObject({ text: '(t.name = ANY($1::text[]) OR t.name IS NULL)', values: [['a']] });
  });

  test('when null is excluded with __n, then NULL rows are dropped', async () => {
    expect(await filter('name__n=null')).toMatchObject({ text: 't.name IS NOT NULL', values: [] });
    expect(await filter('name__n=null&name__n=a')).toMatchObject({
      text: '((t.name IS NULL OR NOT (t.name = ANY($1::text[]))) AND t.name IS NOT NULL)',
      values: [['a']],
    });
  });

  test('when null is given to a pattern lookup, then it is the literal text "null"', async () => {
    expect(await filter('name__ic=null')).toMatchObject({ text: 't.name ILIKE ANY($1::text[])', values: [['%null%']] });
  });

  test('when the filter is declared iexact, then the base parameter is case-insensitive but __n stays case-sensitive', async () => {
    expect(await filter('serial=AbC')).toMatchObject({ text: 't.serial ILIKE ANY($1::text[])', values: [['AbC']] });
    expect(await filter('serial=a_c&serial=null')).toMatchObject({
      text: '(t.serial ILIKE ANY($1::text[]) OR t.serial IS NULL)',
      values: [['a\\_c']],
    });
    expect(await filter('serial__n=AbC')).toMatchObject({ text: '(t.serial IS NULL OR NOT (t.serial = ANY($1::text[])))', values: [['AbC']] });
  });

  test('when a blank value is given, then it is dropped like NetBox MultiValueCharFilter and an all-blank filter applies nothing', async () => {
    expect(await filter('name=')).toMatchObject({ text: 'TRUE', values: [] });
    expect(await filter('name__ic=&name__n=')).toMatchObject({ text: 'TRUE', values: [] });
    expect(await filter('name=&name=a')).toMatchObject({ text: 't.name = ANY($1::text[])', values: [['a']] });
  });
});

describe('buildFilter: numeric, date and date-time filters', () => {
  test('when exact values are given, then they are parsed and compared with = ANY over the cast array', async () => {
    expect(await filter('id=1&id=2')).toMatchObject({ text: 't.id = ANY($1::bigint[])', values: [[1, 2]] });
    expect(await filter('weight=1.5')).toMatchObject({ text: 't.weight = ANY($1::numeric[])', values: [[1.5]] });
    expect(await filter('installed=2024-02-29')).toMatchObject({ text: 't.installed = ANY($1::date[])', values: [['2024-02-29']] });
    expect(await filter('created=2024-01-01 10:00:00Z')).toMatchObject({
      text: 't.created = ANY($1::timestamptz[])',
      values: [['2024-01-01T10:00:00Z']],
    });
  });

  test('when comparison lookups are given, then each uses its operator and repeats are OR-ed', async () => {
    expect(await filter('asn__lt=1')).toMatchObject({ text: 't.asn < $1::bigint', values: [1] });
    expect(await filter('asn__lte=1')).toMatchObject({ text: 't.asn <= $1::bigint', values: [1] });
    expect(await filter('asn__gt=1')).toMatchObject({ text: 't.asn > $1::bigint', values: [1] });
    expect(await filter('asn__gte=1')).toMatchObject({ text: 't.asn >= $1::bigint', values: [1] });
    expect(await filter('asn__lt=0&asn__lt=9')).toMatchObject({ text: '(t.asn < $1::bigint OR t.asn < $2::bigint)', values: [0, 9] });
    expect(await filter('installed__gte=2024-01-01')).toMatchObject({ text: 't.installed >= $1::date', values: ['2024-01-01'] });
  });

  test('when __n is given, then NULL rows are kept', async () => {
    expect(await filter('asn__n=5')).toMatchObject({ text: '(t.asn IS NULL OR NOT (t.asn = ANY($1::bigint[])))', values: [[5]] });
  });

  test('when __empty is given on a numeric filter, then it is an IS NULL test; junk applies nothing', async () => {
    expect(await filter('asn__empty=true')).toMatchObject({ text: 't.asn IS NULL', values: [] });
    expect(await filter('asn__empty=False')).toMatchObject({ text: 't.asn IS NOT NULL', values: [] });
    expect(await filter('created__empty=junk')).toMatchObject({ text: 'TRUE' });
  });

  test('when an integer is invalid, then it is {"<param>": ["Enter a whole number."]}', async () => {
    expect(await errorsOf('id=abc')).toEqual({ id: ['Enter a whole number.'] });
    expect(await errorsOf('id=1&id=2.5')).toEqual({ id: ['Enter a whole number.'] });
    expect(await errorsOf('id__gte=x')).toEqual({ id__gte: ['Enter a whole number.'] });
    expect(await errorsOf('id__n=x')).toEqual({ id__n: ['Enter a whole number.'] });
  });

  test('when a decimal, date or date-time is invalid, then the matching Django message is keyed by the parameter', async () => {
    expect(await errorsOf('weight=heavy')).toEqual({ weight: ['Enter a number.'] });
    expect(await errorsOf('installed__lt=2024-13-01')).toEqual({ installed__lt: ['Enter a valid date.'] });
    expect(await errorsOf('created__gt=yesterday')).toEqual({ created__gt: ['Enter a valid date/time.'] });
  });

  test('when a date that does not exist on the calendar is given, then it is a 400 (not a database cast error)', async () => {
    expect(await errorsOf('installed=2024-02-30')).toEqual({ installed: ['Enter a valid date.'] });
    expect(await errorsOf('created__gte=2023-02-29T00:00:00Z')).toEqual({ created__gte: ['Enter a valid date/time.'] });
  });

  test('when a blank value is given, then it is dropped like NetBox MultiValueNumberFilter (no 400, no condition)', async () => {
    expect(await filter('id=')).toMatchObject({ text: 'TRUE', values: [] });
    expect(await filter('asn__gt=&created=')).toMatchObject({ text: 'TRUE', values: [] });
    expect(await filter('id=&id=3')).toMatchObject({ text: 't.id = ANY($1::bigint[])', values: [[3]] });
  });
});

describe('buildFilter: boolean filters', () => {
  test.each([
    ['true', true],
    ['True', true],
    ['false', false],
    ['False', false],
  ])('when the value is %p, then the column is compared with %p', async (value, expected) => {
    expect(await filter(`enabled=${value}`)).toMatchObject({ text: 't.enabled = $1', values: [expected] });
  });

  test('when the value is junk, then no condition is applied (and no error)', async () => {
    expect(await filter('enabled=maybe')).toMatchObject({ text: 'TRUE', values: [] });
    expect(await filter('enabled=&name=a')).toMatchObject({ text: 't.name = ANY($1::text[])', values: [['a']] });
  });

  test('when the parameter is repeated, then the last value wins (QueryDict semantics)', async () => {
    expect(await filter('enabled=true&enabled=false')).toMatchObject({ text: 't.enabled = $1', values: [false] });
  });
});

describe('buildFilter: choice filters', () => {
  test('when valid choices are repeated, then they are OR-ed; __n excludes them keeping NULL', async () => {
    expect(await filter('status=active&status=planned')).toMatchObject({ text: 't.status = ANY($1::text[])', values: [['active', 'planned']] });
    expect(await filter('status__n=retired')).toMatchObject({
      text: '(t.status IS NULL OR NOT (t.status = ANY($1::text[])))',
      values: [['retired']],
    });
  });

  test('when an invalid choice is given, then it is "Select a valid choice. X is not one of the available choices."', async () => {
    expect(await errorsOf('status=bogus')).toEqual({ status: ['Select a valid choice. bogus is not one of the available choices.'] });
    expect(await errorsOf('status__n=Active')).toEqual({ status__n: ['Select a valid choice. Active is not one of the available choices.'] });
  });

  test('when a choice filter gets null, then it selects / excludes NULL', async () => {
    expect(await filter('status=null')).toMatchObject({ text: 't.status IS NULL', values: [] });
    expect(await filter('status__n=null')).toMatchObject({ text: 't.status IS NOT NULL', values: [] });
  });

  test('when choices are numeric, then values are coerced and compared as int[]', async () => {
    expect(await filter('width=19&width=23')).toMatchObject({ text: 't.width = ANY($1::int[])', values: [[19, 23]] });
    expect(await errorsOf('width=21')).toEqual({ width: ['Select a valid choice. 21 is not one of the available choices.'] });
    expect(await errorsOf('width=wide')).toEqual({ width: ['Select a valid choice. wide is not one of the available choices.'] });
  });

  test('when a single-value choice filter is repeated, then only the last value is honoured (and only it is validated)', async () => {
    expect(await filter('face=front&face=rear')).toMatchObject({ text: 't.face = ANY($1::text[])', values: [['rear']] });
    expect(await filter('face=bogus&face=front')).toMatchObject({ values: [['front']] });
  });

  test('when a single-value choice filter is blank, then it applies nothing (Django ChoiceFilter skips empty values)', async () => {
    expect(await filter('face=')).toMatchObject({ text: 'TRUE', values: [] });
  });
});

describe('buildFilter: relation filters', () => {
  test('when known ids are given, then they are resolved and OR-ed', async () => {
    const f = fixture();
    expect(await filter('parent_id=1&parent_id=3', undefined, f)).toMatchObject({ text: 't.parent_id = ANY($1::bigint[])', values: [[1, 3]] });
    expect(f.byId).toHaveBeenCalledWith(['1', '3']);
  });

  test('when a slug resolves to several ids, then all of them match', async () => {
    expect(await filter('parent=east')).toMatchObject({ values: [[1, 2]] });
  });

  test('when an unknown id or slug is given, then it is a 400 keyed by the parameter', async () => {
    expect(await errorsOf('parent_id=1&parent_id=99')).toEqual({ parent_id: ['Select a valid choice. 99 is not one of the available choices.'] });
    expect(await errorsOf('parent=nope')).toEqual({ parent: ['Select a valid choice. nope is not one of the available choices.'] });
    expect(await errorsOf('parent__n=nope')).toEqual({ parent__n: ['Select a valid choice. nope is not one of the available choices.'] });
  });

  test('when a non-integer is given to an id relation, then it is a 400 without calling the resolver', async () => {
    const f = fixture();
    expect(await errorsOf('parent_id=abc', undefined, f)).toEqual({ parent_id: ['Select a valid choice. abc is not one of the available choices.'] });
    expect(f.byId).not.toHaveBeenCalled();
  });

  test('when null is given, then it selects empty relations without calling the resolver; mixed with ids it ORs', async () => {
    const f = fixture();
    expect(await filter('parent_id=null', undefined, f)).toMatchObject({ text: 't.parent_id IS NULL', values: [] });
    expect(f.byId).not.toHaveBeenCalled();
    expect(await filter('parent=site-a&parent=null')).toMatchObject({
      text: '(t.parent_id = ANY($1::bigint[]) OR t.parent_id IS NULL)',
      values: [[1]],
    });
  });

  test('when __n is given, then the ids are excluded keeping NULL, and __n=null drops NULL', async () => {
    expect(await filter('parent_id__n=2')).toMatchObject({ text: '(t.parent_id IS NULL OR NOT (t.parent_id = ANY($1::bigint[])))', values: [[2]] });
    expect(await filter('parent__n=null')).toMatchObject({ text: 't.parent_id IS NOT NULL', values: [] });
  });

  test('when the resolver throws a ValidationError, then its messages are keyed by the parameter', async () => {
    const f = fixture();
    f.bySlug.mockRejectedValueOnce(new ValidationError({ slug: ['boom'] }));
    expect(await errorsOf('parent=site-a', undefined, f)).toEqual({ parent: ['boom'] });
  });

  test('when the resolver fails otherwise, then the error propagates unchanged', async () => {
    const f = fixture();
    f.bySlug.mockRejectedValueOnce(new Error('connection lost'));
    await expect(buildFilter(f.defs, new URLSearchParams('parent=site-a'))).rejects.toThrow('connection lost');
  });
});

describe('buildFilter: method filters', () => {
  test('when a method filter is given, then apply() receives all values and a null lookup, and its SQL is AND-ed in', async () => {
    const f = fixture();
    const out = await filter('q=50%25&name=a', undefined, f);
    expect(f.q).toHaveBeenCalledWith(['50%'], null);
    expect(out.text).toBe('(t.name ILIKE $1 AND t.name = ANY($2::text[]))');
    expect(out.values).toEqual(['%50\\%%', ['a']]);
  });

  test('when a declared lookup is used, then apply() receives it', async () => {
    const f = fixture();
    expect(await filter('child_count__gt=2', undefined, f)).toMatchObject({ text: 't.children > $1', values: [2] });
    expect(f.childCount).toHaveBeenCalledWith(['2'], 'gt');
  });

  test('when an undeclared lookup is used, then it is an unknown-lookup 400', async () => {
    expect(await errorsOf('child_count__lt=2')).toEqual({ child_count__lt: ['Unknown lookup "lt" for filter "child_count".'] });
    expect(await errorsOf('q__n=x')).toEqual({ q__n: ['Unknown lookup "n" for filter "q".'] });
  });

  test('when an integer method filter gets a non-integer, then it is a 400 and apply() is not called', async () => {
    const f = fixture();
    expect(await errorsOf('child_count=many', undefined, f)).toEqual({ child_count: ['Enter a whole number.'] });
    expect(f.childCount).not.toHaveBeenCalled();
  });

  test('when apply() returns undefined, then no condition is added', async () => {
    expect(await filter('q=%20%20')).toMatchObject({ text: 'TRUE', values: [] });
  });
});
