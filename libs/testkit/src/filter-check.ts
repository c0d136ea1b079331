/**
 * Filter checks that can fail: for every filter derived from a declared
 * field, two objects that differ in that field, one that must match and one
 * that must not, for the base filter and each of its lookups. A filter that
 * ignores its value, or an inverted lookup, fails the contract.
 */
import type { FieldDef, ModelDef } from '@inventory/rest';
import { Defects, type PassContext } from './probe';

type Obj = Record<string, any>;
type Kind = 'text' | 'number' | 'boolean' | 'date' | 'datetime' | 'choice' | 'fk';

const TEXT = new Set(['string', 'text', 'slug', 'email', 'url', 'color']);

function kindOf(field: FieldDef): Kind | null {
  if (TEXT.has(field.type)) return 'text';
  switch (field.type) {
    case 'integer':
    case 'bigint':
    case 'decimal':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'date':
      return 'date';
    case 'datetime':
      return 'datetime';
    case 'choice':
      return 'choice';
    case 'fk':
      return 'fk';
    default:
      return null;
  }
}

/** Names of the model's own filters (they replace generated ones of the same name). */
function ownFilterNames(model: ModelDef): Set<string> {
  if (!model.filters) return new Set();
  // a stand-in context: every property is callable and yields itself, so the definitions can be built without a service
  const any: any = new Proxy(function () {}, {
    get: (_t, k) => (k === Symbol.toPrimitive ? () => 'x' : k === 'then' ? undefined : any),
    apply: () => any,
  });
  try {
    return new Set(model.filters(any, model).map((d) => d.name));
  } catch {
    return new Set();
  }
}

/** The value a representation holds for a field, as the filter compares it. */
function valueOf(kind: Kind, rep: Obj, name: string): any {
  const v = rep[name];
  if (v === undefined || v === null) return null;
  if (kind === 'choice') return typeof v === 'object' ? (v.value ?? null) : v;
  if (kind === 'fk') return typeof v === 'object' ? v.id : v;
  return v;
}

/** Microseconds since the epoch of an ISO date or datetime (the API keeps microseconds). */
function micros(s: string): bigint {
  const m = /^(\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?)(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/.exec(s);
  if (!m) return BigInt(Date.parse(s)) * 1000n;
  const base = Date.parse(m[1].length === 10 ? m[1] : `${m[1].replace(' ', 'T')}${m[3] ?? 'Z'}`);
  const frac = m[2] ? Number(`${m[2].slice(1)}000000`.slice(0, 6)) : 0;
  return BigInt(base) * 1000n + BigInt(frac);
}

function compare(kind: Kind, a: any, b: any): number {
  if (kind === 'date' || kind === 'datetime') {
    const x = micros(String(a));
    const y = micros(String(b));
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return Number(a) - Number(b);
}

const lower = (v: unknown) => String(v).toLowerCase();

/** Whether a stored value passes `lookup` with query value `q`, with the semantics NetBox documents. */
function matches(kind: Kind, lookup: string, v: any, q: string, iexact: boolean): boolean {
  const nul = v === null || v === undefined;
  switch (lookup) {
    case '':
      if (nul || q === 'null') return nul && q === 'null';
      if (kind === 'text') return iexact ? lower(v) === lower(q) : String(v) === q;
      if (kind === 'date' || kind === 'datetime') return compare(kind, v, q) === 0;
      if (kind === 'number') return Number(v) === Number(q);
      return String(v) === q;
    case 'n':
      return !matches(kind, '', v, q, iexact) && !(nul && q === 'null');
    case 'ic':
      return !nul && lower(v).includes(lower(q));
    case 'isw':
      return !nul && lower(v).startsWith(lower(q));
    case 'iew':
      return !nul && lower(v).endsWith(lower(q));
    case 'ie':
      return !nul && lower(v) === lower(q);
    case 'nic':
    case 'nisw':
    case 'niew':
    case 'nie':
      return !matches(kind, lookup.slice(1), v, q, iexact);
    case 'lt':
      return !nul && compare(kind, v, q) < 0;
    case 'lte':
      return !nul && compare(kind, v, q) <= 0;
    case 'gt':
      return !nul && compare(kind, v, q) > 0;
    case 'gte':
      return !nul && compare(kind, v, q) >= 0;
    case 'empty':
      return q === 'true' ? nul || v === '' : !(nul || v === '');
    default:
      throw new Error(`no semantics for lookup ${lookup}`);
  }
}

const token = () => Math.random().toString(16).slice(2, 8).padEnd(6, '0');

/** Two valid, well separated values of a field (distinct prefixes, middles and suffixes), in a few variants. */
function candidates(kind: Kind, field: FieldDef): [unknown, unknown][] {
  switch (kind) {
    case 'text': {
      const [r1, r2] = [token(), token()];
      if (field.type === 'color') return [['abc123', 'def456']];
      if (field.type === 'email') return [[`qa${r1}x@alpha.org`, `zb${r2}y@beta.net`]];
      if (field.type === 'url') return [[`https://qa${r1}.alpha.org/x`, `https://zb${r2}.beta.net/y`]];
      if (field.type === 'slug') return [[`qa-${r1}-x`, `zb-${r2}-y`]];
      const max = 'maxLength' in field && field.maxLength ? field.maxLength : 100;
      const min = 'minLength' in field && field.minLength ? field.minLength : 0;
      const shape = (p: string, r: string, s: string) => {
        const body = r.repeat(Math.ceil(Math.max(min - 3, 6) / r.length)).slice(0, Math.max(min - 3, 6));
        return `${p}${body}${s}`.slice(0, max);
      };
      return [[shape('Qa', r1, 'x'), shape('Zb', r2, 'y')]];
    }
    case 'number': {
      const dec = field.type === 'decimal';
      let pairs: [number, number][] = dec ? [[2.5, 7.25], [1.5, 3.75], [10.5, 20.25]] : [[3, 7], [1, 2], [10, 20], [100, 200], [-5, -2]];
      if (dec) {
        // values the column can hold (a device type's u_height has one decimal place); whole numbers when none fit
        const places = (x: number) => (String(x).split('.')[1] ?? '').length;
        const scale = (field as { decimalPlaces?: number }).decimalPlaces ?? 4;
        pairs = pairs.filter(([a, b]) => places(a) <= scale && places(b) <= scale);
        if (!pairs.length) pairs = [[2, 7]];
      }
      const { min, max } = field as { min?: number; max?: number };
      return pairs.filter(([a, b]) => (min === undefined || Math.min(a, b) >= min) && (max === undefined || Math.max(a, b) <= max));
    }
    case 'boolean':
      return [[true, false]];
    case 'date':
      return [['2021-03-04', '2022-05-06']];
    case 'datetime':
      return [['2021-03-04T05:06:07Z', '2022-05-06T07:08:09.123456Z']];
    case 'choice': {
      const values = (field as { choices: readonly (readonly [string | number, string])[] }).choices.map(([v]) => v);
      const out: [unknown, unknown][] = [];
      for (let i = 0; i + 1 < values.length && out.length < 4; i++) out.push([values[i], values[i + 1]]);
      return out;
    }
    default:
      return [];
  }
}

/** Query values for each lookup, chosen from A and B so that exactly one of them should match. */
function queries(kind: Kind, a: any, b: any): [string, string][] {
  switch (kind) {
    case 'text': {
      const s = String(a);
      const other = lower(b ?? '');
      // the shortest prefix / suffix / inner piece of A that B does not share (URLs share "https://")
      const grow = (cut: (n: number) => string, test: (piece: string) => boolean) => {
        for (let n = 3; n <= s.length; n++) if (!test(lower(cut(n)))) return cut(n);
        return s;
      };
      const pre = grow((n) => s.slice(0, n), (x) => other.startsWith(x));
      const suf = grow((n) => s.slice(-n), (x) => other.endsWith(x));
      let mid = s.slice(1, -1);
      for (let i = 1; i + 4 < s.length; i++) {
        if (!other.includes(lower(s.slice(i, i + 4)))) {
          mid = s.slice(i, i + 4);
          break;
        }
      }
      return [
        ['', s],
        ['n', s],
        ['ic', mid.toUpperCase()],
        ['nic', mid.toUpperCase()],
        ['isw', pre.toUpperCase()],
        ['nisw', pre.toUpperCase()],
        ['iew', suf.toUpperCase()],
        ['niew', suf.toUpperCase()],
        ['ie', s.toUpperCase()],
        ['nie', s.toUpperCase()],
      ];
    }
    case 'number':
    case 'date':
    case 'datetime': {
      const [lo, hi] = compare(kind, a, b) < 0 ? [a, b] : [b, a];
      return [
        ['', String(a)],
        ['n', String(a)],
        ['lt', String(hi)],
        ['lte', String(lo)],
        ['gt', String(lo)],
        ['gte', String(hi)],
      ];
    }
    case 'boolean':
      return [
        ['', String(a)],
        ['', String(b)],
      ];
    default:
      return [
        ['', String(a)],
        ['n', String(a)],
      ];
  }
}

interface Pair {
  a: Obj;
  b: Obj;
}

export async function filterPass(ctx: PassContext): Promise<void> {
  const { model, api, path } = ctx;
  const defects = new Defects(`filters ${ctx.title}`);
  const skipped: string[] = [];
  let checks = 0;
  const documented = new Set(ctx.checker.parameters(path));
  const own = ownFilterNames(model);
  const excluded = new Set([...(model.skipFilters ?? []), ...own]);

  const create = async (): Promise<Obj> => {
    const body = await ctx.make();
    const r = await api.post(path, body);
    if (r.status !== 201) throw new Error(`filters ${ctx.title}: create failed: ${r.status} ${r.text.slice(0, 300)}`);
    return r.body;
  };
  const patch = async (obj: Obj, body: Obj): Promise<Obj | string> => {
    const r = await api.patch(`${path}${obj.id}/`, body);
    return r.status === 200 ? r.body : `PATCH ${JSON.stringify(body)} → ${r.status} ${r.text.slice(0, 200)}`;
  };
  /** Asks the list for A and B with one filter, and compares with the expectation. */
  const check = async (param: string, q: string, pair: Pair, expected: Obj[], note: string) => {
    const url = `${path}?id=${pair.a.id}&id=${pair.b.id}&${encodeURIComponent(param)}=${encodeURIComponent(q)}&limit=10`;
    if (expected.length !== 1) {
      skipped.push(`${param}=${q}: cannot tell A from B (${note})`);
      return;
    }
    checks++;
    const r = await api.get(url);
    if (r.status !== 200) {
      defects.add(`${param}|status`, `GET ${url} → ${r.status} ${r.text.slice(0, 200)} (${note})`);
      return;
    }
    const got = (r.body.results as Obj[]).map((o) => o.id).sort((x, y) => x - y);
    const want = expected.map((o) => o.id).sort((x, y) => x - y);
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      const who = (ids: number[]) => ids.map((i) => (i === pair.a.id ? 'A' : i === pair.b.id ? 'B' : String(i))).join(',') || 'none';
      defects.add(`${param}|result`, `GET ${url}: expected [${who(want)}], got [${who(got)}] (${note})`);
    }
  };

  const fields: [string, FieldDef][] = Object.entries(model.fields);
  if (model.timestamps) fields.push(['created', { type: 'datetime', readOnly: true }], ['last_updated', { type: 'datetime', readOnly: true }]);

  for (const [name, field] of fields) {
    if (field.filter === false || field.writeOnly || field.virtual) continue;
    const kind = kindOf(field);
    if (!kind) continue;
    if (kind === 'fk') {
      await checkRelation(name, field);
      continue;
    }
    if (excluded.has(name)) continue;
    if (!documented.has(name)) {
      defects.add(`${name}|undocumented`, `filter ${name} of declared field ${name} is not in the OpenAPI parameters of ${path}`);
      continue;
    }
    const pair: Pair = { a: await create(), b: await create() };
    let ok = false;
    let why = 'read-only field';
    if (!field.readOnly) {
      for (const [va, vb] of candidates(kind, field)) {
        const a = await patch(pair.a, { [name]: va });
        const b = typeof a === 'string' ? a : await patch(pair.b, { [name]: vb });
        if (typeof a !== 'string' && typeof b !== 'string') {
          Object.assign(pair, { a, b });
          ok = true;
          break;
        }
        if (typeof a !== 'string') pair.a = a; // A changed before B was refused
        why = typeof a === 'string' ? a : (b as string);
        // some values may be set on create only (a custom field's type): make A and B with them
        const made = await Promise.all([va, vb].map(async (v) => api.post(path, { ...(await ctx.make()), [name]: v })));
        if (made.every((r) => r.status === 201)) {
          Object.assign(pair, { a: made[0].body, b: made[1].body });
          ok = true;
          break;
        }
      }
    }
    let va = valueOf(kind, pair.a, name);
    let vb = valueOf(kind, pair.b, name);
    // an empty query value is ignored (as django-filter does), so an empty value cannot be probed for
    if (!ok && (va === null || vb === null || va === '' || vb === '' || lower(va) === lower(vb) || (kind === 'datetime' && compare(kind, va, vb) === 0))) {
      skipped.push(`${name}: no two distinct valid values (${why})`);
      continue;
    }
    const iexact = 'iexactFilter' in field && !!field.iexactFilter;
    const lookups = kind === 'text' || kind === 'number' || kind === 'date' || kind === 'datetime';
    for (const [lookup, q] of queries(kind, va, vb)) {
      const param = lookup ? `${name}__${lookup}` : name;
      if (lookup && !documented.has(param) && lookups) {
        defects.add(`${param}|undocumented`, `lookup ${param} is not in the OpenAPI parameters of ${path}`);
        continue;
      }
      const expected = [pair.a, pair.b].filter((o) => matches(kind, lookup, valueOf(kind, o, name), q, iexact));
      await check(param, q, pair, expected, `A.${name}=${JSON.stringify(va)}, B.${name}=${JSON.stringify(vb)}`);
    }
    // empty / null: B loses its value
    if (!field.readOnly && !field.required && (kind === 'text' || field.nullable)) {
      const b = await patch(pair.b, { [name]: kind === 'text' && !field.nullable ? '' : null });
      if (typeof b === 'string') skipped.push(`${name}: cannot be emptied (${b})`);
      else {
        pair.b = b;
        vb = valueOf(kind, b, name);
        va = valueOf(kind, pair.a, name);
        const note = `A.${name}=${JSON.stringify(va)}, B.${name}=${JSON.stringify(vb)}`;
        const probes: [string, string][] = lookups ? [['empty', 'true'], ['empty', 'false'], ['n', String(va)]] : [];
        if (field.nullable && vb === null) probes.push(['', 'null'], ['n', 'null']);
        for (const [lookup, q] of probes) {
          const param = lookup ? `${name}__${lookup}` : name;
          if (!documented.has(param)) continue;
          await check(param, q, pair, [pair.a, pair.b].filter((o) => matches(kind, lookup, valueOf(kind, o, name), q, iexact)), note);
        }
      }
    }
  }

  /** `<name>_id` and `<name>` (by slug or the declared key), with `__n`, null and, for tree targets, descendants. */
  async function checkRelation(name: string, field: FieldDef): Promise<void> {
    if (field.type !== 'fk') return;
    const idParam = field.idFilter ?? `${name}_id`;
    const key = field.filterKey === undefined ? 'slug' : field.filterKey;
    const params = [idParam, ...(key ? [name] : [])].filter((p) => !excluded.has(p));
    if (!params.length) return;
    for (const p of params) if (!documented.has(p)) defects.add(`${p}|undocumented`, `filter ${p} of relation ${name} is not in the OpenAPI parameters of ${path}`);
    const target = field.to === model.label ? { path, make: ctx.make, model } : ctx.declared.get(field.to);
    const pair: Pair = { a: await create(), b: await create() };
    let targets: Obj[] = [];
    let child: Obj | null = null;
    if (target && !field.readOnly) {
      for (let i = 0; i < 2; i++) {
        const r = await api.post(target.path, await target.make());
        if (r.status === 201) targets.push(r.body);
      }
      if (targets.length === 2) {
        const a = await patch(pair.a, { [name]: targets[0].id });
        const b = typeof a === 'string' ? a : await patch(pair.b, { [name]: targets[1].id });
        if (typeof a === 'string' || typeof b === 'string') {
          skipped.push(`${name}: cannot point A and B at new ${field.to} objects (${typeof a === 'string' ? a : (b as string)})`);
          // A may have moved before B was refused: the checks below read it as it now is
          if (typeof a !== 'string') pair.a = a;
          targets = [];
        } else Object.assign(pair, { a, b });
      }
      if (targets.length === 2 && field.treeFilter && target.model.tree && target.model.fields.parent) {
        const r = await api.post(target.path, { ...(await target.make()), parent: targets[0].id });
        if (r.status === 201) child = r.body;
      }
    }
    const va = valueOf('fk', pair.a, name);
    let vb = valueOf('fk', pair.b, name);
    if (va === null || va === vb) {
      if (va !== null && field.nullable && !field.readOnly) {
        const b = await patch(pair.b, { [name]: null });
        if (typeof b !== 'string') {
          pair.b = b;
          vb = null;
        }
      }
      if (va === null || va === vb) {
        skipped.push(`${name}: A and B cannot point at different ${field.to} objects`);
        return;
      }
    }
    const keyOf = async (rep: Obj | null): Promise<string | null> => {
      if (!rep || !key) return null;
      if (rep[key] !== undefined && rep[key] !== null) return String(rep[key]);
      if (typeof rep.url !== 'string') return null;
      const r = await api.get(rep.url.replace(/^https?:\/\/[^/]+/, ''));
      return r.status === 200 && r.body?.[key] !== undefined ? String(r.body[key]) : null;
    };
    const note = `A.${name}=${va}, B.${name}=${vb}`;
    const expect = (q: number | null, lookup: string) => [pair.a, pair.b].filter((o) => matches('fk', lookup, valueOf('fk', o, name), q === null ? 'null' : String(q), false));
    if (params.includes(idParam)) {
      await check(idParam, String(va), pair, expect(va, ''), note);
      await check(`${idParam}__n`, String(va), pair, expect(va, 'n'), note);
      if (vb === null) await check(idParam, 'null', pair, expect(null, ''), note);
    }
    const ka = await keyOf(pair.a[name]);
    if (params.includes(name)) {
      if (ka === null) skipped.push(`${name}: no ${key} on the related object`);
      else {
        await check(name, ka, pair, expect(va, ''), `${note}, A.${name}.${key}=${ka}`);
        await check(`${name}__n`, ka, pair, expect(va, 'n'), `${note}, A.${name}.${key}=${ka}`);
      }
    }
    // a tree filter matches descendants: B under a child of A's target matches A's target, and only B matches the child
    if (child && params.includes(idParam)) {
      const b = await patch(pair.b, { [name]: child.id });
      if (typeof b === 'string') skipped.push(`${name}: cannot move B under a child (${b})`);
      else {
        pair.b = b;
        const treeNote = `A.${name}=${va}, B.${name}=${child.id} (a child of ${va})`;
        const both = await api.get(`${path}?id=${pair.a.id}&id=${pair.b.id}&${idParam}=${va}`);
        checks++;
        const got = (both.body?.results ?? []).map((o: Obj) => o.id).sort((x: number, y: number) => x - y);
        const want = [pair.a.id, pair.b.id].sort((x, y) => x - y);
        if (both.status !== 200 || JSON.stringify(got) !== JSON.stringify(want)) {
          defects.add(`${idParam}|tree`, `GET ${path}?id=${pair.a.id}&id=${pair.b.id}&${idParam}=${va}: expected A and B (descendants match), got ${both.status} ${JSON.stringify(got)} (${treeNote})`);
        }
        await check(idParam, String(child.id), pair, [pair.b], treeNote);
      }
    }
  }

  // q: case-insensitive contains over the declared search fields
  if (model.search.length && documented.has('q') && !own.has('q')) {
    const pair: Pair = { a: await create(), b: await create() };
    const searchable = model.search.filter((s) => model.fields[s] && TEXT.has(model.fields[s].type) && !model.fields[s].writeOnly);
    if (searchable.length === model.search.length) {
      const field = searchable.find((s) => !model.fields[s].readOnly) ?? searchable[0];
      const hits = (text: string) => [pair.a, pair.b].filter((o) => searchable.some((s) => lower(o[s] ?? '').includes(lower(text))));
      const middle = () => {
        const v = String(pair.a[field] ?? '');
        return v.slice(2, -1).slice(0, 8) || v;
      };
      if (!middle() || hits(middle()).length !== 1) {
        const [va] = candidates('text', model.fields[field])[0] ?? [];
        const a = await patch(pair.a, { [field]: va });
        if (typeof a !== 'string') pair.a = a;
      }
      const mid = middle();
      await check('q', mid.toUpperCase(), pair, hits(mid), `A.${field}=${JSON.stringify(pair.a[field])}, B.${field}=${JSON.stringify(pair.b[field])}`);
    } else skipped.push(`q: search columns ${model.search.join(', ')} are not all text fields of the representation`);
  }

  if (skipped.length) console.log(`filters ${ctx.title}: ${checks} checks, skipped:\n  ${skipped.join('\n  ')}`);
  defects.throwIfAny(`in ${checks} filter checks`);
  if (checks === 0) throw new Error(`filters ${ctx.title}: no filter could be checked`);
}
