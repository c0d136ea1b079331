/**
 * The contract's property-based pass: random bodies, query strings, ids and
 * headers against a model's list, detail and bulk endpoints. Nothing may
 * answer 5xx, and a rejected write may not change a single row.
 */
import fc from 'fast-check';
import type { Reply } from './http';
import { RAW_BODIES, applyPlan, bodyPlan, headers, pathId, queryString, type BodyPlan } from './arbitraries';
import { Defects, FUZZ_RUNS, FUZZ_SEED, SchemaProbe, describeProbe, describeReply, isWrite, send, signature, type PassContext, type Probe } from './probe';

type Obj = Record<string, any>;

/** Sends one probe and records what breaks the contract; returns the reply (null when none came). */
export async function exercise(ctx: PassContext, defects: Defects, p: Probe, live: number[]): Promise<Reply | null> {
  const write = isWrite(p);
  const before = write ? await ctx.db.snapshot() : null;
  const { reply, error } = await send(ctx.api, p);
  const t = defects.tally;
  t.requests++;
  if (write) t.writes++;
  if (write && (!reply || reply.status >= 400)) t.rejected++;
  if (!reply || reply.status >= 500) t.server_errors++;
  if (!reply || reply.status >= 500) defects.add(signature(p, reply, '5xx'), `${describeProbe(p)} → ${describeReply(reply, error)}`);
  if (before) {
    const after = await ctx.db.snapshot();
    if (!reply || reply.status >= 400) {
      const diff = SchemaProbe.diff(before, after);
      if (diff.length) t.partial_writes++;
      if (diff.length) defects.add(signature(p, reply, 'partial'), `rejected write changed data (${diff.join('; ')}): ${describeProbe(p)} → ${describeReply(reply)}`);
    }
  }
  if (reply && reply.status < 300) {
    checkShape(ctx, defects, p, reply);
    track(p, reply, live);
  }
  return reply;
}

/** Successful answers still match the model's OpenAPI schema. */
function checkShape(ctx: PassContext, defects: Defects, p: Probe, reply: Reply): void {
  if (p.method === 'HEAD' || p.method === 'OPTIONS' || p.method === 'DELETE' || reply.body === undefined || reply.body === null) return;
  const [path, query = ''] = p.path.split('?');
  // ?export= answers a file (CSV, a template's output), not the list
  if (new URLSearchParams(query).has('export')) return;
  const brief = !!new URLSearchParams(query).get('brief');
  const name = brief ? `Brief${ctx.schema}` : ctx.schema;
  try {
    if (p.method === 'GET' && selectsFields(query)) {
      // fields= / omit= answer a part of each object: the page around them is what the schema can still check
      if (path === ctx.path) ctx.checker.checkList(ctx.schema, { ...reply.body, results: [] });
    } else if (p.method === 'GET' && path === ctx.path) {
      if (brief) (reply.body.results as unknown[]).forEach((r) => ctx.checker.check(name, r));
      else ctx.checker.checkList(ctx.schema, reply.body);
    } else if (Array.isArray(reply.body)) reply.body.forEach((r) => ctx.checker.check(name, r));
    else ctx.checker.check(name, reply.body);
  } catch (err) {
    defects.add(signature(p, reply, 'schema'), `answer does not match the schema (${String((err as Error).message).slice(0, 300)}): ${describeProbe(p)}`);
  }
}

/** Whether a query string asks for a part of each object (`fields=` / `omit=` with a name). */
function selectsFields(query: string): boolean {
  const params = new URLSearchParams(query);
  return ['fields', 'omit'].some((k) => params.getAll(k).some((v) => v.split(',').some((n) => n.trim() !== '')));
}

/** Keeps the list of live ids current: creates add, deletes remove. */
function track(p: Probe, reply: Reply, live: number[]): void {
  if (p.method === 'POST' && reply.status === 201) {
    for (const o of Array.isArray(reply.body) ? reply.body : [reply.body]) if (o && typeof o.id === 'number') live.push(o.id);
  }
  if (p.method === 'DELETE' && reply.status === 204) {
    const gone = new Set<number>();
    const m = /\/(\d+)\/$/.exec(p.path);
    if (m) gone.add(Number(m[1]));
    if (Array.isArray(p.body)) for (const i of p.body) if (i && typeof i === 'object') gone.add(Number((i as Obj).id));
    for (let i = live.length - 1; i >= 0; i--) if (gone.has(live[i])) live.splice(i, 1);
  }
}

const sometimes = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { freq: 4, nil: undefined });

/** An id that no object has (the largest a PostgreSQL integer holds). */
const NO_OBJECT = 2147483647;

/** Registers the fuzz test of one model. */
export async function fuzzPass(ctx: PassContext): Promise<void> {
  const runs = FUZZ_RUNS;
  console.log(`fuzz ${ctx.title}: seed=${FUZZ_SEED} runs=${runs}`);
  const defects = new Defects(`fuzz ${ctx.title} (replay with FUZZ_SEED=${FUZZ_SEED} FUZZ_RUNS=${runs})`);
  const live: number[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await ctx.api.post(ctx.path, await ctx.make());
    if (r.status === 201) live.push(r.body.id);
  }
  const known = () => live;
  // with none of its own left (it deleted them), an id no object has: never another test's fixture (ids 1, 2, ...)
  const pick = (i: number) => (live.length ? live[i % live.length] : NO_OBJECT);
  /** An id of an existing object the fuzz did not create (digits a bigint holds, not one of its own). */
  const ownsNot = (target: string) => /^\d+$/.test(target) && Number.isSafeInteger(Number(target)) && Number(target) > 0 && !live.includes(Number(target));
  const plan = bodyPlan(ctx.model, known);
  const hdrs = sometimes(headers());
  const documented = ctx.checker.parameters(ctx.path);
  const id = pathId(known);
  const resolveId = (v: string | (() => string)) => (typeof v === 'function' ? v() : v);
  const body = async (pl: BodyPlan) => applyPlan(pl.kind === 'near' ? await ctx.make() : {}, pl);
  const config = (k: number) => ({ seed: (FUZZ_SEED + k) | 0, numRuns: runs, endOnFailure: true });

  // list: query strings
  await fc.assert(
    fc.asyncProperty(queryString(ctx.model, documented), hdrs, fc.constantFrom('GET', 'GET', 'GET', 'HEAD'), async (qs, h, method) => {
      await exercise(ctx, defects, { method, path: `${ctx.path}?${qs}`, headers: h }, live);
    }),
    config(1),
  );

  // create: one body, a list of bodies, or a raw text
  const createBody = fc.oneof(
    { arbitrary: plan.map((p) => ({ one: p })), weight: 4 },
    { arbitrary: fc.array(plan, { minLength: 0, maxLength: 3 }).map((list) => ({ list })), weight: 2 },
    { arbitrary: fc.constantFrom(...RAW_BODIES).map((raw) => ({ raw })), weight: 1 },
  );
  await fc.assert(
    fc.asyncProperty(createBody, hdrs, async (b, h) => {
      const p: Probe = { method: 'POST', path: ctx.path, headers: h };
      if ('raw' in b) {
        p.raw = b.raw;
        p.headers = { 'content-type': 'application/json', ...h };
      } else if ('one' in b) p.body = await body(b.one);
      else p.body = await Promise.all(b.list.map(body));
      await exercise(ctx, defects, p, live);
    }),
    config(2),
  );

  // detail: any method, any id, any body
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('GET', 'PUT', 'PATCH', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'POST'),
      id,
      fc.nat(),
      plan,
      fc.boolean(),
      hdrs,
      fc.option(queryString(ctx.model, ['brief', 'exclude']), { freq: 5, nil: undefined }),
      async (method, rawId, n, pl, patchOnly, h, qs) => {
        let target = typeof rawId === 'function' ? String(pick(n)) : resolveId(rawId);
        // writes touch only what the fuzz created: other tests' fixtures (ids 1, 2, ...) must survive it
        if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS' && ownsNot(target)) target = String(pick(n));
        const p: Probe = { method, path: `${ctx.path}${target}/${qs ? `?${qs}` : ''}`, headers: h };
        if (method === 'PUT' || method === 'POST') p.body = await body(pl);
        else if (method === 'PATCH') p.body = patchOnly && pl.kind === 'near' ? applyPlan({}, pl) : await body(pl);
        else if (method === 'DELETE' && patchOnly && n % 3 === 0) p.body = applyPlan({}, pl);
        await exercise(ctx, defects, p, live);
      },
    ),
    config(3),
  );

  // bulk: PUT/PATCH/DELETE over the list with ids of every kind
  const bulkId = fc.oneof(
    { arbitrary: fc.nat().map((n) => () => pick(n)), weight: 4 },
    { arbitrary: fc.nat().map((n) => () => String(pick(n))), weight: 1 },
    {
      arbitrary: fc.constantFrom<unknown>(
        0,
        -1,
        'abc',
        1.5,
        null,
        2 ** 63,
        1e300,
        '9223372036854775808',
        '18446744073709551616',
        '99999999999999999999',
        [],
        {},
      ),
      weight: 2,
    },
  );
  const bulkItem = fc.tuple(bulkId, plan, fc.boolean());
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('PUT', 'PATCH', 'PATCH', 'DELETE'),
      fc.oneof(
        { arbitrary: fc.array(bulkItem, { minLength: 0, maxLength: 4 }).map((items) => ({ items })), weight: 5 },
        { arbitrary: fc.constantFrom<unknown>({}, 'x', null, 1, [1], [null], [[]], [{}]).map((garbage) => ({ garbage })), weight: 1 },
      ),
      hdrs,
      async (method, b, h) => {
        const p: Probe = { method, path: ctx.path, headers: h };
        if ('garbage' in b) p.body = b.garbage;
        else {
          const out: unknown[] = [];
          for (const [rawId, pl, minimal] of b.items) {
            const idValue = typeof rawId === 'function' ? (rawId as () => number)() : rawId;
            const base = method === 'DELETE' || minimal ? {} : await body(pl);
            const item = method === 'DELETE' ? base : minimal ? applyPlan({}, pl) : base;
            out.push(item && typeof item === 'object' && !Array.isArray(item) ? { ...(item as Obj), id: idValue } : item);
          }
          p.body = out;
        }
        await exercise(ctx, defects, p, live);
      },
    ),
    config(4),
  );

  const t = defects.tally;
  console.log(`fuzz ${ctx.title}: seed=${FUZZ_SEED} requests=${t.requests} writes=${t.writes} rejected=${t.rejected} 5xx=${t.server_errors} partial_writes=${t.partial_writes}`);
  defects.throwIfAny(`in ${runs} runs per endpoint group`);
}
