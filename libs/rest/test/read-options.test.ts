import { ValidationError } from '@inventory/core';
import { raw, render, sql } from '@inventory/filtering';
import { defineModel, f, type ServiceContext } from '@inventory/rest';
import { afterConditions, decodeCursor, encodeCursor, orderTerms, splitTopLevel } from '../src/read/keyset';
import { parseFieldSelection, parseReadOptions } from '../src/read/read-options';
import { project } from '../src/read/field-selection';

const widget = defineModel({
  label: 'demo.widget',
  endpoint: 'widgets',
  verboseName: 'widget',
  fields: { name: f.name(50), group: f.fk('demo.group', 'SET_NULL', { nullable: true }), description: f.description(), weight: f.integer({ nullable: true }) },
  brief: ['name'],
  display: (r) => String(r.name),
  ordering: ['name'],
  counts: { part_count: { model: 'demo.part', field: 'widget' } },
});

const ctx = (secret: string) => ({ name: 'demo', models: new Map([[widget.label, widget]]), settings: { cursorSecret: secret } }) as unknown as ServiceContext;
const q = (s: string) => new URLSearchParams(s);
const text = (s: ReturnType<typeof sql>) => render(s).text;

/** The ValidationError body a call throws. */
function errorsOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err.errors;
    throw err;
  }
  throw new Error('no ValidationError');
}

describe('fields= and omit=', () => {
  test('when fields= is repeated and names keys of relations, then the names add up, a whole relation wins and deeper names select nothing', () => {
    const s = parseFieldSelection(q('fields=id,tenant.name&fields=group.slug, group&fields=site.region.name&omit=id'))!;
    expect([...s.include!]).toEqual(['id', 'group']);
    expect([...s.nested]).toEqual([['tenant', new Set(['name'])]]);
    expect(s.omit.size).toBe(0);
    expect(parseFieldSelection(q('fields=&omit=tags,,custom_fields'))).toEqual({ include: null, nested: new Map(), omit: new Set(['tags', 'custom_fields']) });
    expect(parseFieldSelection(q('fields=&omit='))).toBeNull();
  });

  test('when a representation is projected, then only the selected keys stay, in its order, and a related object or list keeps only its named keys', () => {
    const rep = { id: 1, url: 'u', tenant: { id: 2, name: 't', slug: 's' }, tags: [{ id: 3, name: 'a' }, { id: 4, name: 'b' }], group: null, ['__proto__']: 1 };
    expect(project(rep, parseFieldSelection(q('fields=tags.name,tenant.name,id,group.name,constructor'))!)).toEqual({
      id: 1,
      tenant: { name: 't' },
      tags: [{ name: 'a' }, { name: 'b' }],
      group: null,
    });
    expect(Object.keys(project(rep, parseFieldSelection(q('omit=url,tags'))!))).toEqual(['id', 'tenant', 'group', '__proto__']);
  });
});

describe('read options', () => {
  test('when no read option is given (or count=true), then the list is NetBox 3.7 as it was', () => {
    expect(parseReadOptions(q('limit=5&offset=10&ordering=name&count=true'))).toBeNull();
    expect(parseReadOptions(q('count=false'))).toEqual({ select: null, count: false, start: null, cursor: null });
    expect(parseReadOptions(q('cursor='))).toMatchObject({ cursor: '' });
    expect(parseReadOptions(q('start=12&limit=3'))).toMatchObject({ start: 12 });
    expect(parseReadOptions(q('start=99999999999999999999999'))).toMatchObject({ start: Number.MAX_SAFE_INTEGER });
  });

  test('when options contradict each other or have bad values, then the 400 names each of them', () => {
    expect(errorsOf(() => parseReadOptions(q('start=1&offset=2')))).toEqual({ start: ['The start and offset parameters cannot be used together.'] });
    expect(errorsOf(() => parseReadOptions(q('cursor=&offset=2&count=perhaps')))).toEqual({
      count: ['Must be a valid boolean.'],
      cursor: ['The cursor and offset parameters cannot be used together.'],
    });
    expect(errorsOf(() => parseReadOptions(q('cursor=x&start=3')))).toHaveProperty('cursor');
    expect(errorsOf(() => parseReadOptions(q('start=-1')))).toHaveProperty('start');
    expect(errorsOf(() => parseReadOptions(q('start=1.5')))).toHaveProperty('start');
  });
});

describe('keyset', () => {
  test('when an ORDER BY holds commas inside parentheses and quotes, then it splits only at its top-level commas and values stay with their term', () => {
    const order = sql`(SELECT coalesce(r."a,b", ${'x,y'}) FROM r WHERE r.id = t.id) DESC NULLS LAST, t."name" ASC, ${raw("'a,(b'")} ASC, t.id ASC`;
    const parts = splitTopLevel(order);
    expect(parts.map((p) => render(p))).toEqual([
      { text: '(SELECT coalesce(r."a,b", $1) FROM r WHERE r.id = t.id) DESC NULLS LAST', values: ['x,y'] },
      { text: ' t."name" ASC', values: [] },
      { text: " 'a,(b' ASC", values: [] },
      { text: ' t.id ASC', values: [] },
    ]);
  });

  test('when terms are read, then directions, NULL placement (PostgreSQL defaults too) and NOT NULL columns and counts are known', () => {
    const terms = orderTerms(
      ctx('s'),
      widget,
      raw('t."name" DESC NULLS LAST, t."group_id" ASC NULLS LAST, t."weight" DESC, t."description" ASC, "__count_part_count" DESC, t.id ASC'),
    );
    expect(terms.map((t) => [text(t.expr), t.desc, t.nullsFirst, t.nullable])).toEqual([
      ['t."name"', true, false, false],
      ['t."group_id"', false, false, true],
      ['t."weight"', true, true, true],
      ['t."description"', false, false, false],
      ['"__count_part_count"', true, true, false],
      ['t.id', false, false, false],
    ]);
  });

  test('when no term can be NULL and all go one way, then the next page is a row-value comparison; otherwise a bounded OR-chain with the NULLs as a branch', () => {
    const c = ctx('s');
    const plain = orderTerms(c, widget, raw('t."name" ASC NULLS LAST, t.id ASC'));
    expect(afterConditions(plain, ['b', '7']).map((s) => render(s))).toEqual([{ text: '(t."name", t.id) > ($1, $2)', values: ['b', '7'] }]);
    const nullable = orderTerms(c, widget, raw('t."group_id" ASC NULLS LAST, t.id DESC'));
    expect(afterConditions(nullable, ['4', '9']).map(text)).toEqual([
      't."group_id" >= $1 AND (t."group_id" > $2 OR (t."group_id" = $3 AND t.id < $4))',
      't."group_id" IS NULL',
    ]);
    // inside the NULL group (NULLs last): only the rest of the group follows
    expect(afterConditions(nullable, [null, '9']).map(text)).toEqual(['t."group_id" IS NULL AND t.id < $1']);
    // NULLs first (a descending order): after the NULL group come all the others
    const first = orderTerms(c, widget, raw('t."weight" DESC, t.id ASC'));
    expect(afterConditions(first, [null, '3']).map(text)).toEqual(['t."weight" IS NULL AND t.id > $1', 't."weight" IS NOT NULL']);
  });

  test('when a cursor is decoded, then only an unaltered one issued for the same order (and secret) gives its values back', () => {
    const token = encodeCursor(ctx('one'), 'order-a', ['a b', null, '12']);
    expect(decodeCursor(ctx('one'), token, 'order-a', 3)).toEqual(['a b', null, '12']);
    const invalid = { cursor: ['Invalid cursor.'] };
    expect(errorsOf(() => decodeCursor(ctx('one'), token, 'order-b', 3))).toEqual(invalid);
    expect(errorsOf(() => decodeCursor(ctx('two'), token, 'order-a', 3))).toEqual(invalid);
    expect(errorsOf(() => decodeCursor(ctx('one'), token, 'order-a', 2))).toEqual(invalid);
    const [payload, sig] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ o: 'order-a', k: ['z', null, '1'] })).toString('base64url');
    for (const bad of [`${forged}.${sig}`, payload, `${payload}.`, `${payload}.${sig}x`, 'not a cursor', '']) {
      expect(errorsOf(() => decodeCursor(ctx('one'), bad, 'order-a', 3))).toEqual(invalid);
    }
  });
});
