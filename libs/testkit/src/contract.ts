import { LIST_ACTION_PARAMS, READ_OPTION_PARAMS, type ModelDef } from '@inventory/rest';
import { concurrencyPass } from './concurrency';
import { filterPass } from './filter-check';
import { fuzzPass } from './fuzz';
import type { Client, Reply } from './http';
import { OpenApiChecker } from './openapi-check';
import { FUZZ_RUNS, SchemaProbe, timed, type Declared, type PassContext } from './probe';
import { readOptionsTests } from './read-options-check';
import { asOfTests } from './as-of-check';
import { crossServiceTests, tagConsistencyTests } from './cross-service-check';
import type { Stack } from './stack';

type Obj = Record<string, any>;

export interface ContractOptions {
  stack: () => Stack;
  service: string;
  /**
   * The model's declaration: the contract fuzzes its endpoints, runs
   * concurrent writes and checks every declared filter from it (see fuzz.ts,
   * concurrency.ts, filter-check.ts).
   */
  model: ModelDef;
  /** List path, e.g. `/api/tenancy/tenants/`. */
  path: string;
  /** Component schema name, e.g. `Tenant`. */
  schema: string;
  /** The i-th valid create body; bodies must differ for different i. */
  make: (i: number) => Obj | Promise<Obj>;
  /** A PATCH body changing one or more fields. */
  patch: Obj;
  /** A PATCH body that must be refused (a bad value, not a missing field). */
  badPatch: Obj;
  /** Bodies that must be refused, and the error key each must name. */
  invalid: { body: Obj; field: string }[];
  /** Keys of the brief representation besides id, url, display. */
  brief: string[];
  /** Choice fields whose OPTIONS entry must list choices. */
  choices?: string[];
  /** Semantic filter checks: a query and which of the created objects it must return. */
  filters?: { query: (objs: Obj[]) => string; expect: (objs: Obj[]) => Obj[] }[];
  /** How many objects the query-count test creates (default 60). */
  volume?: number;
  /** Bodies for objects of other services' models this one refers to, by label (default: a name and slug). */
  targets?: Record<string, (i: number) => Obj>;
  /**
   * References the cross-service pass leaves to focused tests, because a
   * bare target cannot be written (a device's primary IPs must first be
   * assigned to one of its interfaces).
   */
  crossServiceExclude?: string[];
  /**
   * Labels of other services' models this one refers to that no service
   * serves yet (ipam's addresses before ipam exists): the cross-service pass
   * has no target to make for them and leaves them out, and fails once one
   * is served (so the list is kept short).
   */
  unserved?: string[];
}

/** Models declared in this test file (jest loads modules per file), for passes that need another model's objects. */
const declared = new Map<string, Declared>();

const ids = (list: Obj[]) => list.map((o) => o.id).sort((a, b) => a - b);

function ok(reply: Reply, status: number): Reply {
  if (reply.status !== status) throw new Error(`expected ${status}, got ${reply.status}: ${reply.text.slice(0, 1000)}`);
  return reply;
}

/** A plausible value for a documented query parameter, from its name. */
function sampleValue(name: string, created: Obj): string {
  const base = name.split('__')[0];
  const lookup = name.includes('__') ? name.split('__').pop()! : null;
  if (lookup === 'empty') return 'true';
  if (base === 'id' || base.endsWith('_id')) return String(base === 'id' ? created.id : 1);
  const v = created[base];
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && 'value' in v) return String(v.value);
  if (v && typeof v === 'object' && 'slug' in v) return String(v.slug);
  if (base === 'created' || base === 'last_updated') return String(created.created ?? '2024-01-01T00:00:00Z');
  return 'x';
}

/**
 * The generic contract every model runs with one call: CRUD single and bulk,
 * brief, pagination, every documented filter and lookup, OPTIONS, bad input,
 * all-or-none bulk failures and the query count per list page. Every
 * response is checked against the model's generated OpenAPI schema.
 */
export function runModelContract(title: string, o: ContractOptions): void {
  describe(`${title} contract`, () => {
    let api: Client;
    let schema: OpenApiChecker;
    let n = 0;
    const make = async () => o.make(++n);
    const create = async (): Promise<Obj> => {
      const r = ok(await api.post(o.path, await make()), 201);
      schema.check(o.schema, r.body);
      return r.body;
    };

    let db: SchemaProbe;
    declared.set(o.model.label, { model: o.model, service: o.service, path: o.path, make });
    const pass = (): PassContext => ({ title, path: o.path, schema: o.schema, model: o.model, api: timed(api), checker: schema, db, make, patch: o.patch, declared });

    beforeAll(async () => {
      api = o.stack().client(o.service);
      const doc = ok(await o.stack().serviceClient(o.service).get('/internal/openapi'), 200).body;
      schema = new OpenApiChecker(doc);
      db = new SchemaProbe(o.stack().databaseUrl, o.service);
    });
    afterAll(() => db?.end());

    test('when an object is created, then detail, list and brief read it back', async () => {
      const body = await make();
      const r = ok(await api.post(o.path, body), 201);
      schema.check(o.schema, r.body);
      expect(r.headers.get('location')).toBe(r.body.url);
      expect(r.body.url).toMatch(new RegExp(`^http://[^/]+${o.path}${r.body.id}/$`));
      expect(typeof r.body.display).toBe('string');
      const detail = ok(await api.get(`${o.path}${r.body.id}/`), 200);
      schema.check(o.schema, detail.body);
      expect(detail.body).toEqual(r.body);
      const brief = ok(await api.get(`${o.path}${r.body.id}/?brief=1`), 200);
      schema.check(`Brief${o.schema}`, brief.body);
      expect(Object.keys(brief.body).sort()).toEqual(['id', 'url', 'display', ...o.brief].sort());
      const list = ok(await api.get(`${o.path}?id=${r.body.id}`), 200);
      schema.checkList(o.schema, list.body);
      expect(list.body.count).toBe(1);
      expect(list.body.results[0]).toEqual(r.body);
      const briefList = ok(await api.get(`${o.path}?id=${r.body.id}&brief=true`), 200);
      expect(briefList.body.results[0]).toEqual(brief.body);
    });

    test('when OPTIONS is asked by a superuser, then POST and PUT actions describe the fields', async () => {
      const r = ok(await api.options(o.path), 200);
      expect(r.body.actions.POST).toBeDefined();
      expect(r.body.actions.PUT).toBeDefined();
      expect(r.body.parses).toContain('application/json');
      for (const field of o.choices ?? []) {
        const choices = r.body.actions.POST[field].choices;
        expect(Array.isArray(choices) && choices.length > 0).toBe(true);
        expect(Object.keys(choices[0]).sort()).toEqual(['display_name', 'value']);
      }
      const detail = ok(await api.options(`${o.path}999999/`), 200);
      expect(detail.body.actions.POST).toBeUndefined();
    });

    test('when pages are walked with limit and offset, then links are absolute and every object appears once', async () => {
      const created = ok(await api.post(o.path, await Promise.all([make(), make(), make()])), 201).body as Obj[];
      const filter = `id__gte=${Math.min(...created.map((c) => c.id))}&id__lte=${Math.max(...created.map((c) => c.id))}`;
      const seen: number[] = [];
      let url: string | null = `${o.path}?${filter}&limit=1`;
      let pages = 0;
      while (url) {
        const r = ok(await api.get(url.replace(/^https?:\/\/[^/]+/, '')), 200);
        schema.checkList(o.schema, r.body);
        seen.push(...r.body.results.map((x: Obj) => x.id));
        if (r.body.next) expect(r.body.next).toMatch(/^http:\/\/[^/]+\/api\/.*limit=1&offset=\d+/);
        if (pages > 0) expect(r.body.previous).toMatch(/^http:\/\//);
        url = r.body.next;
        pages++;
      }
      expect(seen.sort((a, b) => a - b)).toEqual(ids(created));
      const past = ok(await api.get(`${o.path}?${filter}&limit=2&offset=50`), 200);
      expect(past.body.results).toEqual([]);
      expect(past.body.count).toBe(3);
      const bad = ok(await api.get(`${o.path}?${filter}&limit=-5&offset=abc`), 200);
      expect(bad.body.results.length).toBe(3);
      const all = ok(await api.get(`${o.path}?${filter}&limit=0`), 200);
      expect(all.body.results.length).toBe(3);
    });

    test('when PATCH sends some fields, then only those change', async () => {
      const obj = await create();
      const r = ok(await api.patch(`${o.path}${obj.id}/`, o.patch), 200);
      schema.check(o.schema, r.body);
      for (const [k, v] of Object.entries(o.patch)) {
        const got = r.body[k];
        const value = got && typeof got === 'object' && 'value' in got ? got.value : got;
        if (typeof v !== 'object' || v === null) expect(value).toEqual(v);
      }
      const untouched = Object.keys(obj).filter((k) => !(k in o.patch) && k !== 'last_updated' && !k.endsWith('_count') && k !== 'display');
      for (const k of untouched) expect(r.body[k]).toEqual(obj[k]);
    });

    test('when a bulk create has one bad item, then nothing is created and errors come back as a list', async () => {
      const before = ok(await api.get(`${o.path}?limit=1`), 200).body.count;
      const bad = o.invalid[0];
      const r = ok(await api.post(o.path, [await make(), bad.body, await make()]), 400);
      expect(Array.isArray(r.body)).toBe(true);
      expect(r.body[0]).toEqual({});
      expect(r.body[1][bad.field]).toBeDefined();
      expect(r.body[2]).toEqual({});
      expect(ok(await api.get(`${o.path}?limit=1`), 200).body.count).toBe(before);
    });

    test('when a bulk update has one bad item, then no object changes', async () => {
      const a = await create();
      const b = await create();
      const r = await api.patch(o.path, [{ id: a.id, ...o.patch }, { id: b.id, ...o.badPatch }]);
      expect(r.status).toBe(400);
      expect(Array.isArray(r.body)).toBe(false);
      expect(ok(await api.get(`${o.path}${a.id}/`), 200).body).toEqual(a);
      expect(ok(await api.get(`${o.path}${b.id}/`), 200).body).toEqual(b);
    });

    test('when objects are bulk updated and bulk deleted, then all of them change and then go', async () => {
      const a = await create();
      const b = await create();
      const up = ok(await api.patch(o.path, [{ id: a.id, ...o.patch }, { id: b.id, ...o.patch }]), 200);
      expect(ids(up.body)).toEqual(ids([a, b]));
      up.body.forEach((x: Obj) => schema.check(o.schema, x));
      const del = ok(await api.delete(o.path, [{ id: a.id }, { id: b.id }]), 204);
      expect(del.text).toBe('');
      ok(await api.get(`${o.path}${a.id}/`), 404);
      ok(await api.get(`${o.path}${b.id}/`), 404);
      const noList = ok(await api.delete(o.path, { id: a.id }), 400);
      expect(noList.body.non_field_errors[0]).toMatch(/Expected a list of items/);
      const noId = ok(await api.patch(o.path, [{ name: 'x' }]), 400);
      expect(noId.body).toEqual([{ id: ['This field is required.'] }]);
    });

    test('when an object is deleted, then the answer is 204 with no body and the object is gone', async () => {
      const obj = await create();
      const r = ok(await api.delete(`${o.path}${obj.id}/`), 204);
      expect(r.text).toBe('');
      const gone = ok(await api.get(`${o.path}${obj.id}/`), 404);
      expect(gone.body).toEqual({ detail: 'Not found.' });
    });

    test('when input is bad, then the answer is a NetBox-shaped 4xx and nothing is written', async () => {
      const before = ok(await api.get(`${o.path}?limit=1`), 200).body.count;
      for (const bad of o.invalid) {
        const r = ok(await api.post(o.path, bad.body), 400);
        expect(r.body[bad.field]).toBeDefined();
        expect(Array.isArray(r.body[bad.field])).toBe(true);
      }
      const json = ok(await api.request('POST', o.path, { raw: '{"name": ', headers: { 'content-type': 'application/json' } }), 400);
      expect(json.body.detail).toMatch(/^JSON parse error/);
      const type = ok(await api.request('POST', o.path, { raw: 'name=x', headers: { 'content-type': 'text/plain' } }), 415);
      expect(type.body.detail).toBe('Unsupported media type "text/plain" in request.');
      ok(await api.get(`${o.path}abc/`), 404);
      const lookup = ok(await api.get(`${o.path}?id__xyz=1`), 400);
      expect(lookup.body.id__xyz).toBeDefined();
      const number = ok(await api.get(`${o.path}?id=abc`), 400);
      expect(number.body).toEqual({ id: ['Enter a whole number.'] });
      const notDict = ok(await api.post(o.path, [1]), 400);
      expect(notDict.body[0].non_field_errors[0]).toMatch(/Expected a dictionary, but got int/);
      const unknown = ok(await api.get(`${o.path}?no_such_filter=1`), 200);
      expect(unknown.headers.get('x-ignored-parameters')).toBe('no_such_filter');
      const method = ok(await api.request('POST', `${o.path}1/`, { body: {} }), 405);
      expect(method.body.detail).toBe('Method "POST" not allowed.');
      expect(ok(await api.get(`${o.path}?limit=1`), 200).body.count).toBe(before);
    });

    test('when every documented filter and lookup is used, then each answers 200 or a 400 naming it', async () => {
      const obj = await create();
      // saved filters and exports are not filters (their own tests: services/extras/test/lists-gateway.test.ts)
      const params = schema.parameters(o.path).filter((p) => !['limit', 'offset', 'ordering', 'brief', 'exclude', ...READ_OPTION_PARAMS, ...LIST_ACTION_PARAMS].includes(p));
      expect(params.length).toBeGreaterThan(5);
      for (const p of params) {
        const r = await api.get(`${o.path}?${encodeURIComponent(p)}=${encodeURIComponent(sampleValue(p, obj))}`);
        if (r.status === 400) expect(Object.keys(r.body)).toContain(p);
        else {
          expect([p, r.status]).toEqual([p, 200]);
          schema.checkList(o.schema, r.body);
          expect(r.headers.get('x-ignored-parameters')).toBeNull();
        }
      }
      const byId = ok(await api.get(`${o.path}?id=${obj.id}&id=${obj.id + 100000}`), 200);
      expect(ids(byId.body.results)).toEqual([obj.id]);
      const notId = ok(await api.get(`${o.path}?id__n=${obj.id}&limit=1000`), 200);
      expect(notId.body.results.map((x: Obj) => x.id)).not.toContain(obj.id);
    });

    if (o.filters?.length) {
      test('when filtered, then exactly the matching objects come back', async () => {
        const objs = [await create(), await create(), await create()];
        const range = `id__gte=${objs[0].id}&id__lte=${objs[2].id}`;
        for (const f of o.filters!) {
          const r = ok(await api.get(`${o.path}?${range}&${f.query(objs)}`), 200);
          expect(ids(r.body.results)).toEqual(ids(f.expect(objs)));
        }
      });
    }

    test('when a list page holds 50 or all rows, then it costs the same number of queries, and a page of one row no more', async () => {
      const volume = o.volume ?? 60;
      const bodies = [];
      for (let i = 0; i < volume; i++) bodies.push(await make());
      const made = ok(await api.post(o.path, bodies), 201).body as Obj[];
      const range = `id__gte=${made[0].id}&id__lte=${made[made.length - 1].id}`;
      const counts = [];
      for (const limit of [1, 50, 1000]) {
        const r = ok(await api.get(`${o.path}?${range}&limit=${limit}`), 200);
        expect(r.body.results.length).toBe(Math.min(limit, r.body.count));
        counts.push(Number(r.headers.get('x-query-count')));
      }
      expect(counts[0]).toBeGreaterThan(0);
      // the pages of 50 and of all rows hold rows with and without each reference: the same statements;
      // one row may need fewer (a relation it does not use is not read), never more
      expect(counts[2]).toBe(counts[1]);
      expect(counts[0]).toBeLessThanOrEqual(counts[1]);
    });

    // fields=, omit=, count=false, start= and cursor= pages (read-options-check.ts)
    readOptionsTests(pass);
    // as_of reads and diffs (docs/decisions/034)
    asOfTests(pass);
    crossServiceTests(o, pass);
    tagConsistencyTests(o, pass);

    const long = Math.max(60_000, FUZZ_RUNS * 2_000);
    test('fuzz: when random bodies, queries, ids and headers hit list, detail and bulk endpoints, then nothing answers 5xx and rejected writes change nothing', () => fuzzPass(pass()), long);
    test('fuzz: when random writes run concurrently, then nothing answers 5xx and unique rules, trees and counts hold', () => concurrencyPass(pass()), long);
    test('when every declared filter gets one object that must match and one that must not, then exactly the matching one comes back', () => filterPass(pass()), 60_000);
    // last: the object it makes moves the shared counter that other tests' bodies derive from
    if (o.model.timestamps) {
      test('when stored timestamps end in zeros, then they are written as Python writes them: six digits of microseconds, or none', async () => {
        const made = await create();
        // PostgreSQL's text form drops the trailing zeros (.4951 for .495100): the wire form must not
        await db.query(`UPDATE ${db.table(o.model.table)} SET created = '2026-11-28 01:50:56.4951+00', last_updated = '2026-11-28 01:50:57+00' WHERE id = $1`, [made.id]);
        for (const path of [`${o.path}${made.id}/`, `${o.path}?id=${made.id}`]) {
          const body = ok(await api.get(path), 200).body;
          const object = body.results ? body.results[0] : body;
          // a model whose `created` is a date (the seed's prefixes and addresses) shows the day
          expect([object.created, object.last_updated]).toEqual([o.model.createdAsDate ? '2026-11-28' : '2026-11-28T01:50:56.495100Z', '2026-11-28T01:50:57Z']);
        }
      });
    }
  });
}
