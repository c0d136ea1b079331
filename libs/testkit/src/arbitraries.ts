/**
 * fast-check arbitraries derived from a model declaration: near-valid and
 * hostile bodies, query strings, path ids and headers for the contract fuzz.
 */
import fc from 'fast-check';
import type { FieldDef, ModelDef } from '@inventory/rest';

type Obj = Record<string, any>;

/** A JSON literal sent verbatim (numbers JSON.stringify cannot write: 1e400, -0, 2^64 exactly). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a value that may hold RawJson leaves. */
export function jsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof RawJson) {
      raws.push(v.text);
      return `@@raw${raws.length - 1}@@`;
    }
    return v;
  });
  if (text === undefined) return 'null';
  return raws.length ? text.replace(/"@@raw(\d+)@@"/g, (_m, i: string) => raws[Number(i)]) : text;
}

/** An object with an own `__proto__` key (a literal would set the prototype instead). */
const protoKey = (value: unknown): Obj => JSON.parse(`{"__proto__": ${jsonText(value)}}`) as Obj;

const deepArray = (depth: number): unknown => new RawJson('['.repeat(depth) + ']'.repeat(depth));
const deepObject = (depth: number): unknown => new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

const HUGE_NUMBERS: unknown[] = [
  1e300,
  -1e300,
  2 ** 63,
  -(2 ** 63) - 1,
  2 ** 53 + 1,
  2 ** 31,
  -(2 ** 31) - 1,
  1.5,
  -0.0001,
  new RawJson('1e400'),
  new RawJson('-1e400'),
  new RawJson('18446744073709551616'),
  new RawJson('9223372036854775808'),
  new RawJson('123456789012345678901234567890.5'),
  new RawJson('-0'),
];

const NASTY_STRINGS: unknown[] = [
  '',
  ' ',
  'NaN',
  'Infinity',
  '-1',
  '1e300',
  '99999999999999999999',
  '18446744073709551616',
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udfffy',
  '\ufeff',
  '日本語',
  '😀',
  "'; DROP TABLE x; --",
  '%',
  '_',
  '\\',
  '__proto__',
  'constructor',
  'null',
  'true',
  'x'.repeat(300),
  'x'.repeat(5000),
];

const GARBAGE: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  [],
  {},
  [null],
  [[]],
  [{}],
  protoKey(1),
  protoKey({ polluted: true }),
  { constructor: {} },
  { constructor: { prototype: { polluted: true } } },
  { toString: 'x' },
  deepArray(200),
  deepObject(200),
  ...HUGE_NUMBERS.slice(0, 6),
  ...NASTY_STRINGS.slice(0, 12),
];

/** Values of the wrong shape or out of range for one declared field. */
export function badValuesFor(name: string, field: FieldDef, knownIds: () => number[]): unknown[] {
  const ids = knownIds();
  const someId = ids.length ? ids[ids.length - 1] : 1;
  switch (field.type) {
    case 'string':
    case 'text':
    case 'slug':
    case 'email':
    case 'url':
    case 'password':
    case 'color': {
      const max = field.maxLength ?? 200;
      return [
        ...NASTY_STRINGS,
        'x'.repeat(max + 1),
        'é'.repeat(max),
        '😀'.repeat(Math.ceil(max / 2) + 1),
        `a${'\u0000'.repeat(3)}`,
        'ab\ud800cd',
        'a b',
        'user@',
        '@x',
        'http://',
        'javascript:alert(1)',
        'https://exa mple.com',
        '#ff0000',
        'FFFFFF',
        123,
        1e300,
        true,
        ['x'],
        { value: 'x' },
        protoKey('x'),
        null,
      ];
    }
    case 'integer':
    case 'bigint':
    case 'decimal':
      return [...HUGE_NUMBERS, 'NaN', 'Infinity', '1', '1.5', '', ' 1', '0x10', '1e3', null, true, [], {}, -1, (field.max ?? 2 ** 31) + 1, (field.min ?? 0) - 1];
    case 'boolean':
      return ['maybe', 2, -1, 'TRUE', 'yes', 'on', '', null, [], {}, 1e300, 'True\u0000'];
    case 'date':
    case 'datetime':
      return [
        '2024-02-30',
        '2023-02-29',
        '2024-13-01',
        '0000-01-01',
        '0001-01-01T00:00:00Z',
        '10000-01-01',
        '99999-01-01T00:00:00Z',
        '2024-02-30T10:00',
        '2024-02-30T10:00:00Z',
        '2024-01-01T24:00:00Z',
        '2024-01-01T23:59:60Z',
        '2024-01-01T00:00:00+99:99',
        '2024-01-01T00:00:00.1234567Z',
        '2024-01-01 00:00',
        'now',
        'today',
        '',
        12345,
        1e300,
        null,
        [],
        {},
        'a\u0000',
      ];
    case 'json':
      return [deepArray(5000), deepObject(3000), { a: '\u0000' }, { '\u0000': 1 }, ['\ud800'], protoKey(1), 'x', 1e300, new RawJson('1e400'), null, [], {}, { a: 'x'.repeat(20000) }];
    case 'choice':
      return ['nope', '', null, 1, -1, 1e300, true, 'TRUE', [], {}, { value: field.choices[0]?.[0] }, [field.choices[0]?.[0]], 'a\u0000', String(field.choices[0]?.[0]).toUpperCase()];
    case 'fk':
      return [
        0,
        -1,
        2 ** 63,
        1e300,
        1.5,
        new RawJson('18446744073709551616'),
        '1',
        'abc',
        '99999999999999999999',
        '',
        someId,
        String(someId),
        { id: someId },
        { id: 'x' },
        { id: 2 ** 63 },
        { slug: 'nope' },
        { name: '\u0000' },
        { slug: '\ud800' },
        { nope: 1 },
        { [name]: 1 },
        { slug: ['x'] },
        { slug: { a: 1 } },
        { name: null },
        protoKey(1),
        { constructor: 1 },
        {},
        [],
        [someId],
        true,
      ];
    case 'm2m':
      return ['x', 1, null, {}, [1e300], [2 ** 63], [-1], [0], ['1'], ['abc'], [null], [{}], [{ id: 'x' }], [{ name: '\u0000' }], [protoKey(1)], [someId, someId], [[1]], [new RawJson('18446744073709551616')]];
    case 'contenttype':
      return field.many
        ? ['dcim.site', [], ['nope.nope'], ['dcim'], [''], ['a.b.c'], [1], [null], [{}], ['dcim.site\u0000'], ['DCIM.SITE'], [1e300], null, 'x']
        : ['nope.nope', 'dcim', '', 'a.b.c', 1, 1e300, null, ['dcim.site'], {}, 'dcim.site\u0000', 'DCIM.SITE', '\ud800'];
    case 'cidr':
    case 'inet':
      return [
        '', ' ', 'x', '10.0.0.256/24', '10.0.0.0/33', '2001:db8::/129', '2001:db8:::1', '1.2.3', '10.0.0.0/', '10.0.0.0/x', '10.0.0.0/255.0.255.0',
        ...(field.type === 'cidr' ? ['10.0.0.1/24', '2001:db8::1/64'] : []),
        `10.0.0.0/${'9'.repeat(50)}`, 'a\u0000', '\ud800', 1, 1e300, true, null, [], {}, ['10.0.0.0/8'], { value: '10.0.0.0/8' },
      ];
    case 'array':
      return ['x', 1, {}, [null], [{}], [[]], [1e300], ['\u0000'], ['x'.repeat(5000)], Array.from({ length: 2000 }, (_, i) => String(i)), [new RawJson('1e400')], null];
    default:
      return GARBAGE;
  }
}

/** Garbage for the keys every model shares (tags, custom fields, read-only and unknown keys). */
function sharedBad(model: ModelDef): [string, unknown[]][] {
  const out: [string, unknown[]][] = [
    ['id', [0, -1, 2 ** 63, 'x', null, new RawJson('18446744073709551616')]],
    ['url', ['x', null, 1]],
    ['display', [1, null, {}]],
    ['__proto__', [1, {}, { polluted: true }, null]],
    ['constructor', [{}, 1, { prototype: {} }]],
    ['hasOwnProperty', [1, 'x']],
    ['toString', ['x']],
    ['nope', [1, '\u0000']],
  ];
  if (model.tags) {
    out.push([
      'tags',
      ['x', 1, null, {}, [1e300], [2 ** 63], [-1], ['nope'], [null], [{}], [{ name: '\u0000' }], [{ slug: 'nope' }], [{ id: 'x' }], [protoKey(1)], [[]], [new RawJson('18446744073709551616')], [{ slug: '\ud800' }]],
    ]);
  }
  if (model.customFields) {
    out.push(['custom_fields', ['x', 1, null, [], { nope: 1 }, protoKey({}), { a: '\u0000' }, { constructor: 1 }, { toString: 'x' }, deepObject(100)]]);
  }
  return out;
}

/** A mutation plan: keys to set to bad values, keys to drop. Applied to a fresh `make(i)` body. */
export interface BodyPlan {
  kind: 'near' | 'random';
  set: [string, unknown][];
  drop: string[];
  random?: unknown;
}

/** Near-valid bodies (a valid body with a few fields broken) and, sometimes, any JSON at all. */
export function bodyPlan(model: ModelDef, knownIds: () => number[]): fc.Arbitrary<BodyPlan> {
  const fields = Object.entries(model.fields).filter(([, f]) => !f.virtual);
  const choices: [string, unknown[]][] = [...fields.map(([n, f]) => [n, badValuesFor(n, f, knownIds)] as [string, unknown[]]), ...sharedBad(model)];
  const mutation = fc.integer({ min: 0, max: choices.length - 1 }).chain((i) => {
    const [name, values] = choices[i];
    return fc.oneof(
      { arbitrary: fc.constantFrom(...values), weight: 4 },
      { arbitrary: fc.constantFrom(...GARBAGE), weight: 1 },
      { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 },
    ).map((v) => [name, v] as [string, unknown]);
  });
  const near = fc
    .record({ set: fc.array(mutation, { minLength: 1, maxLength: 3 }), drop: fc.subarray(fields.map(([n]) => n), { maxLength: Math.min(2, fields.length) }) })
    .map((p): BodyPlan => ({ kind: 'near', ...p }));
  const random = fc
    .oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(...GARBAGE), fc.dictionary(fc.constantFrom(...choices.map(([n]) => n)), fc.jsonValue({ maxDepth: 2 })))
    .map((r): BodyPlan => ({ kind: 'random', set: [], drop: [], random: r }));
  return fc.oneof({ arbitrary: near, weight: 5 }, { arbitrary: random, weight: 1 });
}

export function applyPlan(base: Obj, plan: BodyPlan): unknown {
  if (plan.kind === 'random') return plan.random;
  const out: Obj = { ...base };
  for (const k of plan.drop) delete out[k];
  for (const [k, v] of plan.set) {
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}

/** Query values, already URL-encoded. */
const QUERY_VALUES = [
  '',
  'null',
  '1',
  '0',
  '-1',
  '1.5',
  '99999999999999999999',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551616',
  '1e300',
  'NaN',
  'Infinity',
  'true',
  'false',
  'True',
  'yes',
  '2024-02-30',
  '2024-13-01',
  '0000-00-00',
  '0001-01-01',
  '10000-01-01',
  '2024-02-30T10:00:00Z',
  '2024-01-01T25:00:00Z',
  '2024-01-01T00:00:00%2B99:99',
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%FF',
  '%C0%AF',
  '%',
  '%%',
  '%2',
  '%25',
  '%5C',
  '_',
  "'",
  '%22',
  ',',
  'a,b',
  '__proto__',
  'constructor',
  'dcim.site',
  'tenancy.tenant',
  '%7B%7D',
  '%5B%5D',
  encodeURIComponent('日本'),
  encodeURIComponent('😀'),
  'x'.repeat(3000),
];

const LOOKUP_SUFFIXES = ['', '', '', '__n', '__ic', '__nic', '__isw', '__iew', '__ie', '__nie', '__empty', '__lt', '__gte', '__xyz', '__', '__n__n'];

const RANDOM_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'id__in', 'q', 'tag', 'tag__n', 'cf_nope', 'format', 'exclude', 'brief', '', '__', 'a%00', '%ED%A0%80', 'x'.repeat(500)];

const NUMBER_GARBAGE = ['', '0', '1', '-1', '-99999', '1.5', '1e3', 'abc', '2147483648', '9223372036854775807', '9223372036854775808', '99999999999999999999', '%00', 'null', '0x10'];

/** Field names a client could try in `ordering=` (valid, counts, unknown and prototype names). */
function orderingNames(model: ModelDef): string[] {
  return [...Object.keys(model.fields), ...Object.keys(model.counts), 'id', '_depth', '_tree', '_path', 'created', 'last_updated', 'constructor', '__proto__', 'toString', 'nope', 'custom_field_data', 'cf_x', ''];
}

/** A raw query string (without `?`) built from the documented parameters and garbage. */
export function queryString(model: ModelDef, documented: string[]): fc.Arbitrary<string> {
  const names = documented.length ? documented : ['id'];
  const value = fc.oneof(
    { arbitrary: fc.constantFrom(...QUERY_VALUES), weight: 4 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }).map(encodeURIComponent), weight: 1 },
    { arbitrary: fc.integer().map(String), weight: 1 },
  );
  const filterParam = fc
    .tuple(
      fc.oneof({ arbitrary: fc.constantFrom(...names), weight: 5 }, { arbitrary: fc.constantFrom(...RANDOM_KEYS), weight: 1 }),
      fc.constantFrom(...LOOKUP_SUFFIXES),
      value,
    )
    .map(([k, s, v]) => `${encodeURIComponent(k + s).replace(/%25/g, '%')}=${v}`);
  const ordering = fc
    .array(fc.tuple(fc.boolean(), fc.constantFrom(...orderingNames(model))), { minLength: 1, maxLength: 3 })
    .map((terms) => `ordering=${terms.map(([d, n]) => (d ? '-' : '') + n).join(',')}`);
  const paging = fc.tuple(fc.constantFrom('limit', 'offset'), fc.constantFrom(...NUMBER_GARBAGE)).map(([k, v]) => `${k}=${v}`);
  const param = fc.oneof({ arbitrary: filterParam, weight: 6 }, { arbitrary: ordering, weight: 2 }, { arbitrary: paging, weight: 2 }, { arbitrary: fc.constant('brief=1'), weight: 1 });
  return fc.array(param, { minLength: 1, maxLength: 5 }).map((ps) => ps.join('&'));
}

/** Ids in paths: existing ones and garbage (already URL-safe). */
export function pathId(knownIds: () => number[]): fc.Arbitrary<string | (() => string)> {
  return fc.oneof(
    { arbitrary: fc.constant(() => String(knownIds().at(-1) ?? 1)), weight: 3 },
    {
      arbitrary: fc.constantFrom(
        '0',
        '-1',
        '00001',
        'abc',
        '1.5',
        '1e3',
        '9223372036854775807',
        '9223372036854775808',
        '18446744073709551616',
        '99999999999999999999999999',
        '%00',
        '1%00',
        '%ED%A0%80',
        encodeURIComponent('١٢'),
        '__proto__',
        'constructor',
        'x'.repeat(2000),
      ),
      weight: 2,
    },
    { arbitrary: fc.integer({ min: 1, max: 50 }).map(String), weight: 1 },
  );
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset=bogus',
  'application/json;;;',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=zz',
  'application/merge-patch+json',
  'application/vnd.api+json',
  '*/*',
  'json',
  ' ',
];

const ACCEPTS = ['application/json', 'text/html', 'application/xml', '*/*', 'application/json; version=99', 'application/json; indent=4', 'text/csv', 'image/png', ' ', 'application/json;q=0'];

const printable = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });

/** Odd request headers (printable ASCII, under Node's 16 KB header limit). */
export function headers(): fc.Arbitrary<Record<string, string>> {
  return fc.record(
    {
      'content-type': fc.constantFrom(...CONTENT_TYPES),
      accept: fc.constantFrom(...ACCEPTS),
      'if-match': fc.oneof(fc.constantFrom('*', '"abc"', 'W/"1"', '""'), printable),
      'if-none-match': fc.constantFrom('*', '"abc"'),
      'idempotency-key': fc.oneof(printable, fc.constant('k'.repeat(4000))),
      'x-request-id': fc.oneof(printable, fc.constant('r'.repeat(4000))),
      'accept-language': fc.constantFrom('de', '*', 'x'.repeat(2000)),
      'x-http-method-override': fc.constantFrom('DELETE', 'PUT', 'TRACE'),
    },
    { requiredKeys: [] },
  );
}

/** Raw request bodies for a JSON content type: broken, odd and hostile texts. */
export const RAW_BODIES = [
  '',
  ' ',
  '{"name": ',
  '[',
  '{"a":1}{"b":2}',
  'null',
  '"str"',
  '123',
  'true',
  '1e400',
  '[1e400]',
  '\ufeff{}',
  '{"__proto__": {"polluted": true}}',
  '{"constructor": {"prototype": {"polluted": true}}}',
  '[{"__proto__": 1}]',
  '{"name": "\\u0000"}',
  '{"name": "\\ud800"}',
  '{"id": 18446744073709551616}',
  '[{"id": 18446744073709551616}]',
  '[{"id": 1e400}]',
  '{"name": "a", "name": "b"}',
  '['.repeat(10000) + ']'.repeat(10000),
  '{"a":'.repeat(2000) + '1' + '}'.repeat(2000),
];
