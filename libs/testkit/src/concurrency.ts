/**
 * The contract's concurrency pass: bursts of random writes (creates that
 * collide, updates of one object, bulk updates in opposite orders, deletes
 * of objects others update, tree moves that would close a cycle) fired
 * together. Nothing may answer 5xx, and afterwards the model's invariants
 * hold in the database: unique rules, consistent acyclic trees, counts.
 */
import fc from 'fast-check';
import type { ModelDef, RelationField } from '@inventory/rest';
import type { Reply } from './http';
import { Defects, FUZZ_RUNS, FUZZ_SEED, describeProbe, describeReply, send, signature, type PassContext, type Probe } from './probe';

type Obj = Record<string, any>;

interface Live {
  id: number;
  body: Obj;
}

type Op =
  | { kind: 'create' | 'dup' }
  | { kind: 'patch' | 'put' | 'delete' | 'unparent'; a: number }
  | { kind: 'steal' | 'bulkPatch' | 'bulkPut' | 'bulkDelete' | 'swap' | 'count'; a: number; b: number }
  | { kind: 'cycle'; a: number; b: number; c: number };

/** Columns of a declared field (relations store `<name>_id`). */
function column(model: ModelDef, name: string): string {
  return model.fields[name]?.type === 'fk' ? `${name}_id` : name;
}

/** Writable fields that take part in a uniqueness rule. */
function uniqueFields(model: ModelDef): string[] {
  const out = new Set<string>();
  for (const [n, f] of Object.entries(model.fields)) if (f.unique && !f.readOnly) out.add(n);
  for (const u of model.unique) for (const n of u.fields) if (model.fields[n] && !model.fields[n].readOnly) out.add(n);
  return [...out];
}

/** Local models whose objects count towards one of this model's counts, with a registered way to create them. */
function countedModels(ctx: PassContext): { name: string; label: string; field: string }[] {
  return Object.entries(ctx.model.counts)
    .filter(([, c]) => ctx.declared.get(c.model)?.service === ctx.declared.get(ctx.model.label)?.service)
    .map(([name, c]) => ({ name, label: c.model, field: c.field }));
}

export async function concurrencyPass(ctx: PassContext): Promise<void> {
  const defects = new Defects(`concurrency ${ctx.title} (replay with FUZZ_SEED=${FUZZ_SEED})`);
  const { model } = ctx;
  const tree = model.tree && model.fields.parent?.type === 'fk';
  const counted = countedModels(ctx);
  const uniques = uniqueFields(model);
  const rounds = 3;
  const opsPerRound = Math.min(60, Math.max(12, Math.round(FUZZ_RUNS / 2)));
  const kinds: Op['kind'][] = ['create', 'dup', 'patch', 'put', 'delete', 'bulkPatch', 'bulkPut', 'bulkDelete'];
  if (uniques.length) kinds.push('steal', 'swap');
  if (tree) kinds.push('cycle', 'cycle', 'unparent');
  if (counted.length) kinds.push('count', 'count');
  const idx = fc.nat(1000);
  const opArb: fc.Arbitrary<Op> = fc.constantFrom(...kinds).chain((kind): fc.Arbitrary<Op> => {
    if (kind === 'create' || kind === 'dup') return fc.constant({ kind });
    if (kind === 'patch' || kind === 'put' || kind === 'delete' || kind === 'unparent') return idx.map((a) => ({ kind, a }));
    if (kind === 'cycle') return fc.tuple(idx, idx, idx).map(([a, b, c]) => ({ kind, a, b, c }));
    return fc.tuple(idx, idx).map(([a, b]) => ({ kind, a, b }));
  });
  const statuses = new Map<string, number>();

  const fire = async (p: Probe) => {
    const { reply, error } = await send(ctx.api, p);
    const key = `${p.method} ${reply?.status ?? 0}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    if (!reply || reply.status >= 500) defects.add(signature(p, reply, 'concurrent-5xx'), `${describeProbe(p)} → ${describeReply(reply, error)}`);
    return reply;
  };

  try {
    await bursts();
  } catch (err) {
    // a service that stops answering fails every later step: report it with what the bursts saw
    defects.add('hung', `the service stopped answering after a burst: ${String((err as Error).message)}`);
    defects.throwIfAny(`(${[...statuses].map(([k, n]) => `${k}×${n}`).join(', ')})`);
  }
  await checkInvariants(ctx, defects, counted);
  defects.throwIfAny(`in ${rounds} bursts of ${opsPerRound} operations (${[...statuses].map(([k, n]) => `${k}×${n}`).join(', ')})`);

  async function bursts(): Promise<void> {
    for (let round = 0; round < rounds; round++) {
      // fresh objects each round, created one by one so the burst has something to fight over
      const live: Live[] = [];
      for (let i = 0; i < 5; i++) {
        const body = await ctx.make();
        const r = await ctx.api.post(ctx.path, body);
        if (r.status === 201) live.push({ id: r.body.id, body });
      }
      if (live.length < 3) throw new Error(`concurrency ${ctx.title}: could not create objects to work on`);
      const at = (i: number) => live[i % live.length];
      const ops = fc.sample(opArb, { seed: (FUZZ_SEED + 100 + round) | 0, numRuns: opsPerRound });
      // bodies are made before the burst (making may itself write)
      const probes: Probe[] = [];
      for (const op of ops) {
        switch (op.kind) {
          case 'create':
            probes.push({ method: 'POST', path: ctx.path, body: await ctx.make() });
            break;
          case 'dup': {
            const body = await ctx.make();
            probes.push({ method: 'POST', path: ctx.path, body }, { method: 'POST', path: ctx.path, body: [body] });
            break;
          }
          case 'patch':
            probes.push({ method: 'PATCH', path: `${ctx.path}${at(op.a).id}/`, body: ctx.patch });
            break;
          case 'put':
            probes.push({ method: 'PUT', path: `${ctx.path}${at(op.a).id}/`, body: await ctx.make() });
            break;
          case 'delete':
            probes.push({ method: 'DELETE', path: `${ctx.path}${at(op.a).id}/` });
            break;
          case 'unparent':
            probes.push({ method: 'PATCH', path: `${ctx.path}${at(op.a).id}/`, body: { parent: null } });
            break;
          case 'steal': {
            const values = Object.fromEntries(uniques.filter((u) => u in at(op.b).body).map((u) => [u, at(op.b).body[u]]));
            probes.push({ method: 'PATCH', path: `${ctx.path}${at(op.a).id}/`, body: values });
            break;
          }
          case 'swap': {
            // two objects take the same new unique values at once: at most one may win
            const fresh = await ctx.make();
            const values = Object.fromEntries(uniques.filter((u) => u in fresh).map((u) => [u, fresh[u]]));
            probes.push({ method: 'PATCH', path: `${ctx.path}${at(op.a).id}/`, body: values }, { method: 'PATCH', path: `${ctx.path}${at(op.b).id}/`, body: values });
            break;
          }
          case 'bulkPatch':
            probes.push(
              { method: 'PATCH', path: ctx.path, body: [{ id: at(op.a).id, ...ctx.patch }, { id: at(op.b).id, ...ctx.patch }] },
              { method: 'PATCH', path: ctx.path, body: [{ id: at(op.b).id, ...ctx.patch }, { id: at(op.a).id, ...ctx.patch }] },
            );
            break;
          case 'bulkPut':
            probes.push({ method: 'PUT', path: ctx.path, body: [{ ...(await ctx.make()), id: at(op.a).id }, { ...(await ctx.make()), id: at(op.b).id }] });
            break;
          case 'bulkDelete':
            probes.push({ method: 'DELETE', path: ctx.path, body: [{ id: at(op.a).id }, { id: at(op.b).id }] });
            break;
          case 'cycle': {
            // A under B, B under C, C under A, all at once: at most two may win
            const [a, b, c] = [at(op.a).id, at(op.b).id, at(op.c).id];
            probes.push(
              { method: 'PATCH', path: `${ctx.path}${a}/`, body: { parent: b } },
              { method: 'PATCH', path: `${ctx.path}${b}/`, body: { parent: c } },
              { method: 'PATCH', path: `${ctx.path}${c}/`, body: { parent: a } },
              { method: 'PATCH', path: ctx.path, body: [{ id: b, parent: a }] },
            );
            break;
          }
          case 'count': {
            const c = counted[op.a % counted.length];
            const other = ctx.declared.get(c.label)!;
            const body = { ...(await other.make()), [c.field]: at(op.a).id };
            const made = await ctx.api.post(other.path, body);
            if (made.status === 201) {
              probes.push(
                { method: 'PATCH', path: `${other.path}${made.body.id}/`, body: { [c.field]: at(op.b).id } },
                { method: 'POST', path: other.path, body: { ...(await other.make()), [c.field]: at(op.b).id } },
              );
            }
            break;
          }
        }
      }
      await Promise.all(probes.map(fire));
    }
  }
}

/** The model's invariants, checked in SQL independently of the engine's bookkeeping. */
async function checkInvariants(ctx: PassContext, defects: Defects, counted: { name: string; label: string; field: string }[]): Promise<void> {
  const { model, db } = ctx;
  const t = db.table(model.table);
  const bad = (what: string, rows: unknown[]) => defects.add(`invariant|${what}`, `${what}: ${JSON.stringify(rows.slice(0, 5))}`);

  for (const [name, f] of Object.entries(model.fields)) {
    if (!f.unique || f.virtual || f.type === 'm2m' || f.type === 'generic') continue;
    const c = `"${column(model, name)}"`;
    const dup = await db.query(`SELECT ${c}::text AS v, count(*)::int AS n FROM ${t} WHERE ${c} IS NOT NULL AND ${c}::text <> '' GROUP BY 1 HAVING count(*) > 1`);
    if (dup.length) bad(`unique field ${name} has duplicates`, dup);
  }
  for (const u of model.unique) {
    const cols = u.fields.map((n) => `"${column(model, n)}"`);
    const exprs = cols.map((c) => (u.caseInsensitive ? `lower(${c}::text)` : c));
    // NULLs are distinct in the rule's own columns (as in the database's index); whenNull columns must be null
    const where = [...(u.whenNull ?? []).map((n) => `"${column(model, n)}" IS NULL`), ...cols.map((c) => `${c} IS NOT NULL`)];
    for (const n of u.unlessBlank ?? []) where.push(`"${column(model, n)}" <> ''`);
    const dup = await db.query(`SELECT ${exprs.map((e, i) => `${e} AS c${i}`).join(', ')}, count(*)::int AS n FROM ${t} WHERE ${where.join(' AND ')} GROUP BY ${exprs.join(', ')} HAVING count(*) > 1`);
    if (dup.length) bad(`unique rule (${u.fields.join(', ')}${u.whenNull ? ` when ${u.whenNull.join(', ')} is null` : ''}${u.unlessBlank ? ` when ${u.unlessBlank.join(', ')} is not blank` : ''}) is broken`, dup);
  }

  if (model.tree && model.fields.parent?.type === 'fk') {
    const path = await db.query(
      `SELECT c.id, c.parent_id, c._path, c._depth FROM ${t} c LEFT JOIN ${t} p ON p.id = c.parent_id
       WHERE c._path IS DISTINCT FROM (CASE WHEN c.parent_id IS NULL THEN ARRAY[c.id]::bigint[] ELSE p._path || c.id END)
          OR c._depth <> cardinality(c._path) - 1
          OR (c.parent_id IS NOT NULL AND p.id IS NULL)`,
    );
    if (path.length) bad('tree _path/_depth differ from the parent chain', path);
    const sort = await db.query(
      `SELECT c.id, c._tree_sort FROM ${t} c LEFT JOIN ${t} p ON p.id = c.parent_id
       WHERE cardinality(c._tree_sort) <> cardinality(c._path)
          OR (c.parent_id IS NOT NULL AND c._tree_sort[1:cardinality(c._tree_sort) - 1] IS DISTINCT FROM p._tree_sort)`,
    );
    if (sort.length) bad('tree sort keys differ from the parent chain', sort);
    const cycles = await db.query(
      `WITH RECURSIVE up(start, cur, n) AS (
         SELECT id, parent_id, 1 FROM ${t} WHERE parent_id IS NOT NULL
         UNION ALL
         SELECT up.start, p.parent_id, up.n + 1 FROM up JOIN ${t} p ON p.id = up.cur
         WHERE p.parent_id IS NOT NULL AND up.cur <> up.start AND up.n <= (SELECT count(*) FROM ${t}))
       SELECT DISTINCT start AS id FROM up WHERE cur = start OR n > (SELECT count(*) FROM ${t})`,
    );
    if (cycles.length) bad('tree has cycles', cycles);
  }

  if (model.tags) {
    const orphans = await db.query(
      `SELECT ti.* FROM ${db.table('_tagged_item')} ti WHERE ti.content_type = $1 AND NOT EXISTS (SELECT 1 FROM ${t} o WHERE o.id = ti.object_id)`,
      [model.label],
    );
    if (orphans.length) bad('tags left behind by deleted objects', orphans);
  }

  // the list's count and each object's counts, against a recount in SQL
  const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM ${t}`);
  const listed = await ctx.api.get(`${ctx.path}?limit=1`);
  if (listed.status !== 200 || listed.body.count !== n) bad('the list count differs from the table', [{ api: listed.body?.count ?? listed.status, sql: n }]);
  for (const c of Object.entries(model.counts)) {
    const [name, def] = c;
    const other = ctx.declared.get(def.model);
    if (!other || !counted.some((x) => x.name === name)) continue;
    const fk = other.model.fields[def.field] as RelationField | undefined;
    if (fk?.type !== 'fk' || fk.virtual) continue;
    const counts = db.table(other.model.table);
    const extra = def.where ? ` AND ${def.where}` : '';
    const recount = def.tree
      ? `WITH RECURSIVE sub(root, id) AS (SELECT id, id FROM ${t} UNION SELECT sub.root, x.id FROM ${t} x JOIN sub ON x.parent_id = sub.id)
         SELECT sub.root AS id, count(c.id)::int AS n FROM sub LEFT JOIN ${counts} c ON c."${def.field}_id" = sub.id${extra} GROUP BY sub.root`
      : `SELECT t.id, (SELECT count(*)::int FROM ${counts} c WHERE c."${def.field}_id" = t.id${extra}) AS n FROM ${t} t`;
    const expected = new Map((await db.query(recount)).map((r) => [Number(r.id), Number(r.n)]));
    const wrong: unknown[] = [];
    let url: string | null = `${ctx.path}?limit=1000`;
    while (url) {
      const page: Reply = await ctx.api.get(url.replace(/^https?:\/\/[^/]+/, ''));
      if (page.status !== 200) {
        bad(`listing for the ${name} check failed`, [page.status, page.text.slice(0, 200)]);
        break;
      }
      for (const o of page.body.results as Obj[]) if (expected.has(o.id) && o[name] !== expected.get(o.id)) wrong.push({ id: o.id, api: o[name], recount: expected.get(o.id) });
      url = page.body.next;
    }
    if (wrong.length) bad(`${name} differs from a recount`, wrong);
  }
}
