/**
 * The contract's read-options pass (libs/rest/src/read/read-options.ts), for every
 * declared model: `fields=` and `omit=` on list and detail, `count=false`,
 * NetBox 4.6's `start=` pages and the opaque `cursor=` pages in the declared
 * ordering and others, while objects are being created between pages.
 */
import { TEXT_TYPES, type ModelDef } from '@inventory/rest';
import type { Reply } from './http';
import type { PassContext } from './probe';

type Obj = Record<string, any>;

const INVALID_CURSOR = { cursor: ['Invalid cursor.'] };
/** More pages than any walk here needs: a walk that goes on is a defect, not a slow test. */
const MAX_PAGES = 60;

function ok(reply: Reply, status: number, what: string): Reply {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status}: ${reply.text.slice(0, 600)}`);
  return reply;
}

const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, '');
const only = (obj: Obj, keys: string[]) => Object.fromEntries(keys.filter((k) => k in obj).map((k) => [k, obj[k]]));

/** Whether `part` appears in `whole` in the same order (not necessarily next to each other). */
function isSubsequence(part: number[], whole: number[]): boolean {
  let at = 0;
  for (const id of whole) if (at < part.length && part[at] === id) at++;
  return at === part.length;
}

/** A stored text field clients sort by (`name`, `username`...), if the model has one. */
function textField(model: ModelDef): string | null {
  const hit = Object.entries(model.fields).find(([, f]) => TEXT_TYPES.has(f.type) && !f.writeOnly && !f.virtual && f.orderable !== false);
  return hit ? hit[0] : null;
}

/** A relation clients sort by, if the model has one (often NULL: the NULL handling of the keyset). */
function relationField(model: ModelDef): string | null {
  const hit = Object.entries(model.fields).find(([, f]) => f.type === 'fk' && !f.writeOnly && f.orderable !== false);
  return hit ? hit[0] : null;
}

interface Walk {
  ids: number[];
  pages: number;
}

/** Follows `next` links from `first`, checking each page; `between` runs after every page (e.g. a create). */
async function walk(ctx: PassContext, first: string, param: 'start' | 'cursor', between?: () => Promise<unknown>): Promise<Walk> {
  const ids: number[] = [];
  let url: string | null = first;
  let pages = 0;
  while (url) {
    if (++pages > MAX_PAGES) throw new Error(`${param} walk from ${first} did not end after ${MAX_PAGES} pages`);
    const r = ok(await ctx.api.get(url), 200, `GET ${url}`);
    ctx.checker.checkList(ctx.schema, r.body);
    expect(r.body.count).toBeNull();
    expect(r.body.previous).toBeNull();
    ids.push(...r.body.results.map((o: Obj) => o.id));
    if (r.body.next !== null) {
      expect(r.body.next).toMatch(new RegExp(`^http://[^/]+${ctx.path}\\?.*${param}=[^&]+`));
      expect(r.body.next).not.toMatch(/[?&]offset=/);
    }
    url = r.body.next === null ? null : local(r.body.next);
    await between?.();
  }
  return { ids, pages };
}

/** Registers the read-options tests of one model (inside the contract's describe). */
export function readOptionsTests(pass: () => PassContext): void {
  const created = async (ctx: PassContext, n: number): Promise<Obj[]> => {
    const bodies = [];
    for (let i = 0; i < n; i++) bodies.push(await ctx.make());
    return ok(await ctx.api.post(ctx.path, bodies), 201, `POST ${ctx.path}`).body as Obj[];
  };
  const byId = (objs: Obj[]) => objs.map((o) => `id=${o.id}`).join('&');

  test('when fields= names some fields, then list and detail objects carry exactly those keys, with the values of the full representation', async () => {
    const ctx = pass();
    const objs = await created(ctx, 2);
    const full = ok(await ctx.api.get(`${ctx.path}?${byId(objs)}`), 200, 'full list').body.results as Obj[];
    expect(full.map((o) => o.id).sort()).toEqual(objs.map((o) => o.id).sort());
    const keys = Object.keys(full[0]).filter((k) => !['id', 'url', 'display'].includes(k));
    const chosen = ['id', keys[0], keys[keys.length - 1]];

    const list = ok(await ctx.api.get(`${ctx.path}?${byId(objs)}&fields=${chosen.join(',')}`), 200, 'fields list');
    expect(list.headers.get('x-ignored-parameters')).toBeNull();
    expect(list.body.count).toBe(2);
    expect(list.body.results).toEqual(full.map((o) => only(o, chosen)));
    for (const o of list.body.results as Obj[]) expect(Object.keys(o).sort()).toEqual([...chosen].sort());

    const detail = ok(await ctx.api.get(`${ctx.path}${full[0].id}/?fields=${chosen.join(',')}`), 200, 'fields detail');
    expect(detail.body).toEqual(only(full[0], chosen));
    expect(detail.headers.get('etag')).toMatch(/^"\d+"$/);

    // repeated parameters add up; brief gives way to fields; unknown names are ignored (NetBox)
    const repeated = ok(await ctx.api.get(`${ctx.path}${full[0].id}/?fields=url&fields=display&brief=1&fields=no_such_field`), 200, 'repeated fields');
    expect(repeated.body).toEqual({ url: full[0].url, display: full[0].display });

    // one level into a related object (or list of objects): only the named keys of it
    const related = keys.find((k) => full[0][k] && typeof full[0][k] === 'object' && !Array.isArray(full[0][k]) && 'id' in full[0][k]);
    if (related) {
      const part = ok(await ctx.api.get(`${ctx.path}${full[0].id}/?fields=id,${related}.id,${related}.display`), 200, 'nested fields');
      expect(part.body).toEqual({ id: full[0].id, [related]: { id: full[0][related].id, display: full[0][related].display } });
    }
  });

  test('when omit= names some fields, then they are left out and every other key is the full representation', async () => {
    const ctx = pass();
    const objs = await created(ctx, 2);
    const full = ok(await ctx.api.get(`${ctx.path}?${byId(objs)}`), 200, 'full list').body.results as Obj[];
    const keys = Object.keys(full[0]).filter((k) => k !== 'id');
    const omitted = [keys[1], keys[keys.length - 1], ...(keys.includes('tags') ? ['tags'] : [])];
    const rest = Object.keys(full[0]).filter((k) => !omitted.includes(k));
    const list = ok(await ctx.api.get(`${ctx.path}?${byId(objs)}&omit=${omitted.join(',')}`), 200, 'omit list');
    expect(list.body.results).toEqual(full.map((o) => only(o, rest)));
    const detail = ok(await ctx.api.get(`${ctx.path}${full[1].id}/?omit=${omitted.join(',')}`), 200, 'omit detail');
    expect(Object.keys(detail.body)).toEqual(rest);
    expect(detail.body).toEqual(only(full[1], rest));
    // fields= wins over omit= (NetBox)
    const both = ok(await ctx.api.get(`${ctx.path}${full[1].id}/?fields=id&omit=id`), 200, 'fields and omit');
    expect(both.body).toEqual({ id: full[1].id });
  });

  test('when count=false, then count is null, nothing else changes, and next still says whether a page follows', async () => {
    const ctx = pass();
    const objs = await created(ctx, 3);
    const range = `id__gte=${objs[0].id}&id__lte=${objs[2].id}`;
    const counted = ok(await ctx.api.get(`${ctx.path}?${range}&limit=2`), 200, 'counted');
    const first = ok(await ctx.api.get(`${ctx.path}?${range}&limit=2&count=false`), 200, 'count=false');
    ctx.checker.checkList(ctx.schema, first.body);
    expect(first.body.count).toBeNull();
    expect(first.body.results).toEqual(counted.body.results);
    expect(first.body.previous).toBeNull();
    expect(first.body.next).toMatch(/count=false/);
    const second = ok(await ctx.api.get(local(first.body.next)), 200, 'count=false next');
    expect(second.body.count).toBeNull();
    expect(second.body.results.map((o: Obj) => o.id)).toEqual([objs.map((o) => o.id).find((id) => !first.body.results.some((r: Obj) => r.id === id))]);
    expect(second.body.next).toBeNull();
    expect(second.body.previous).toMatch(/count=false/);
    const past = ok(await ctx.api.get(`${ctx.path}?${range}&offset=50&count=false`), 200, 'count=false past the end');
    expect(past.body).toMatchObject({ count: null, next: null, results: [] });
    expect(ok(await ctx.api.get(`${ctx.path}?${range}&count=maybe`), 400, 'bad count').body).toHaveProperty('count');
  });

  test('when pages are walked with start=, then every object comes once in id order and next carries the next start', async () => {
    const ctx = pass();
    // a model whose own field is `start` (an ASN range) filters by it: NetBox 3.7's filter wins over the read option
    if ('start' in ctx.model.fields) return;
    const objs = await created(ctx, 5);
    const ids = objs.map((o) => o.id).sort((a, b) => a - b);
    // ordering= gives way to id order, as in NetBox
    const { ids: seen, pages } = await walk(ctx, `${ctx.path}?id__lte=${ids[4]}&start=${ids[0]}&limit=2&ordering=-id`, 'start');
    expect(seen).toEqual(ids);
    expect(pages).toBe(3);
    const from = ok(await ctx.api.get(`${ctx.path}?start=${ids[3]}&id__lte=${ids[4]}`), 200, 'start inside');
    expect(from.body.results.map((o: Obj) => o.id)).toEqual(ids.slice(3));
    const beyond = ok(await ctx.api.get(`${ctx.path}?start=${ids[4] + 1_000_000}`), 200, 'start beyond');
    expect(beyond.body).toMatchObject({ count: null, next: null, previous: null, results: [] });
    expect(ok(await ctx.api.get(`${ctx.path}?start=${ids[0]}&offset=2`), 400, 'start and offset').body).toHaveProperty('start');
    expect(ok(await ctx.api.get(`${ctx.path}?start=-1`), 400, 'negative start').body).toHaveProperty('start');
    expect(ok(await ctx.api.get(`${ctx.path}?start=abc`), 400, 'text start').body).toHaveProperty('start');
  });

  test('when pages are walked with cursor= in the declared ordering and others while objects are created, then every earlier object comes exactly once, in order', async () => {
    const ctx = pass();
    const objs = await created(ctx, 5);
    const min = Math.min(...objs.map((o) => o.id));
    const text = textField(ctx.model);
    const relation = relationField(ctx.model);
    const orderings = [null, `-${text ?? 'id'}`, '-id', ...(relation ? [relation, `-${relation}`] : [])];
    for (const ordering of orderings) {
      const order = ordering ? `&ordering=${ordering}` : '';
      const before = ok(await ctx.api.get(`${ctx.path}?id__gte=${min}&limit=0${order}`), 200, 'before').body.results.map((o: Obj) => o.id) as number[];
      // objects are created between the first pages only: enough to land before and after the cursor,
      // and the walk (two rows a page) still ends after a few pages
      let creations = 0;
      const between = async () => (creations++ < 3 ? created(ctx, 1) : undefined);
      const { ids } = await walk(ctx, `${ctx.path}?id__gte=${min}&limit=2&cursor=${order}`, 'cursor', between);
      const after = ok(await ctx.api.get(`${ctx.path}?id__gte=${min}&limit=0${order}`), 200, 'after').body.results.map((o: Obj) => o.id) as number[];
      const label = `ordering ${ordering ?? '(declared)'}: walked ${JSON.stringify(ids)}, listed ${JSON.stringify(after)}`;
      expect([label, new Set(ids).size]).toEqual([label, ids.length]);
      expect([label, before.filter((id) => !ids.includes(id))]).toEqual([label, []]);
      expect([label, isSubsequence(ids, after)]).toEqual([label, true]);
    }
  });

  test('when a cursor is malformed, tampered with or from another ordering, then the answer is a 400 naming the cursor', async () => {
    const ctx = pass();
    const objs = await created(ctx, 3);
    const range = `id__gte=${objs[0].id}&id__lte=${objs[2].id}`;
    const first = ok(await ctx.api.get(`${ctx.path}?${range}&limit=1&cursor=`), 200, 'first cursor page');
    const token = new URL(first.body.next).searchParams.get('cursor')!;
    ok(await ctx.api.get(`${ctx.path}?${range}&limit=1&cursor=${encodeURIComponent(token)}`), 200, 'the cursor as issued');
    const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === 'A' ? 'B' : 'A') + s.slice(at + 1);
    const bad = ['abc', flip(token, 2), flip(token, token.length - 2), `${token}x`, token.split('.')[0], 'a'.repeat(10_000)];
    for (const cursor of bad) {
      const r = ok(await ctx.api.get(`${ctx.path}?${range}&limit=1&cursor=${encodeURIComponent(cursor)}`), 400, `cursor ${cursor.slice(0, 40)}`);
      expect(r.body).toEqual(INVALID_CURSOR);
    }
    const other = ok(await ctx.api.get(`${ctx.path}?${range}&limit=1&ordering=-id&cursor=${encodeURIComponent(token)}`), 400, 'cursor of another ordering');
    expect(other.body).toEqual(INVALID_CURSOR);
    expect(ok(await ctx.api.get(`${ctx.path}?cursor=&offset=1`), 400, 'cursor and offset').body).toHaveProperty('cursor');
    // (an ASN range's `start` is its own filter, which cursors combine with)
    if (!('start' in ctx.model.fields)) expect(ok(await ctx.api.get(`${ctx.path}?cursor=&start=1`), 400, 'cursor and start').body).toHaveProperty('cursor');
  });
}
