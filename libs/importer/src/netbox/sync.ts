import { randomBytes } from 'node:crypto';
import { type Api, ImportFailure, detailOf, type Row } from './api';
import { bodyOf, changedFields, canonical, customFieldsOf, objectCustomFields, splitCustomFields, type Schema, type Writable } from './bodies';
import { PLAN, modelName, type Step } from './plan';
import { emptyReport, type ModelReport, type Progress } from './report';

/**
 * The per-model diff sync: both sides read whole (in id order), what the
 * target lacks created with its id, what differs updated, what the source
 * no longer has deleted. The same algorithm is the first import, the resume
 * after a stop (what was written is there and equal), the second import a
 * week later (what changed) and the dry run (the counts, nothing written).
 * Writes go in pages of list bodies, each all or none on our side.
 */

export interface SyncOptions {
  from: Api;
  /** Our API, with the import header on every request. */
  to: Api;
  /**
   * The same, its writes answered before the target's readers (projections,
   * the change log) applied them (decision 025's wait skipped): every page of
   * a model but the last wave, whose wait covers those before it.
   */
  toNoWait?: Api;
  writable: Writable;
  dryRun: boolean;
  onError: 'stop' | 'skip';
  tokens: boolean;
  pageSize: number;
  /** Pages of one model written at once (each its own all-or-none request): the target's service works on one while the database works on another. */
  concurrency: number;
  progress: Progress;
  /** After each page written (a test stops an import here). */
  afterPage?: (model: string, page: number) => void | Promise<void>;
}

interface Model {
  step: Step;
  fields: Map<string, Schema>;
  deferred: Set<string>;
  report: ModelReport;
  /** Source objects by id: their ids, and the bodies of their deferred fields (already write bodies: bodyOf leaves ids as they are). */
  source: Map<number, Row>;
  /** Ids on the target after the first pass. */
  target: Set<number>;
  /** Ids the first pass created (would create, in a dry run). */
  fresh: Set<number>;
  /**
   * Per source object, its custom field values that name objects (ids),
   * set in the second pass: the object named may be of a model copied later.
   */
  refs: Map<number, Row>;
}

export async function syncAll(o: SyncOptions): Promise<ModelReport[]> {
  const models: Model[] = [];
  const reports: ModelReport[] = [];
  const steps = PLAN.filter((s) => !s.tokens || o.tokens);
  const reads = readAhead(o, steps);
  for (const [i, step] of steps.entries()) {
    const report = emptyReport(modelName(step.path));
    reports.push(report);
    const fields = withWrites(o.writable.get(step.path), step);
    const read = reads(i);
    const m = fields && read ? await firstPass(o, step, fields, report, read) : null;
    if (!fields) report.note = 'not served here';
    if (m) models.push(m);
    o.progress.done(report);
  }
  for (const m of models.filter((x) => x.deferred.size || x.refs.size)) await timed(m, () => secondPass(o, m));
  // dependents first: a device's interfaces go before the device, a site's racks before the site
  for (const m of [...models].reverse()) await timed(m, () => deletions(o, m));
  return reports;
}

type Read = Promise<[Row[] | null, Row[] | null]>;

/** Models read ahead on both sides, while the one before them is written. */
const AHEAD = 4;

/**
 * Both sides' objects of step i, read up to AHEAD models ahead. Reading a
 * model's target objects before the models before it are written is sound:
 * in the first pass a model's objects change only by its own writes (an
 * import makes no components from templates); at worst an update is sent
 * that changes nothing.
 */
function readAhead(o: SyncOptions, steps: Step[]): (i: number) => Read | null {
  const started = new Map<number, Read>();
  const start = (i: number) => {
    const step = steps[i];
    if (!step || started.has(i) || !o.writable.has(step.path)) return;
    const read: Read = Promise.all([o.from.all(step.path, step.read), o.to.all(step.path, step.read)]);
    read.catch(() => undefined); // awaited in its turn; a failure meanwhile is not unhandled
    started.set(i, read);
  };
  return (i) => {
    for (let k = i; k <= i + AHEAD; k++) start(k);
    const read = started.get(i) ?? null;
    started.delete(i);
    return read;
  };
}

const ENDS: Schema = { type: 'array', items: { type: 'object' } };

function withWrites(fields: Map<string, Schema> | undefined, step: Step): Map<string, Schema> | undefined {
  if (!fields || !step.writes) return fields;
  return new Map([...fields, ...step.writes.map((name): [string, Schema] => [name, ENDS])]);
}

async function timed(m: Model, work: () => Promise<void>): Promise<void> {
  const t0 = Date.now();
  try {
    await work();
  } finally {
    m.report.ms += Date.now() - t0;
  }
}

/** Creates and updates of every field but the deferred ones; null when the source does not serve the model. */
async function firstPass(o: SyncOptions, step: Step, fields: Map<string, Schema>, report: ModelReport, reading: Read): Promise<Model | null> {
  const t0 = Date.now();
  const [source, read] = await reading;
  if (!source) {
    report.note = 'not served by the source';
    return null;
  }
  const target = read ?? [];
  const deferred = new Set(step.deferred ?? []);
  const now = (name: string) => !deferred.has(name);
  const there = new Map(target.map((r) => [Number(r.id), r]));
  report.source = source.length;
  const creates: Row[] = [];
  const updates: Row[] = [];
  const refs = new Map<number, Row>();
  for (const rep of source) {
    const id = Number(rep.id);
    const body = bodyOf(rep, fields, now);
    const named = objectCustomFields(rep);
    const later = splitCustomFields(body, named);
    if (later) refs.set(id, later);
    const existing = there.get(id);
    if (!existing) creates.push(withSecret({ id, ...body, ...(typeof rep.created === 'string' ? { created: rep.created } : {}) }, fields, rep));
    else {
      const theirs = bodyOf(existing, fields, now);
      splitCustomFields(theirs, named);
      const diff = changedFields(body, theirs);
      if (Object.keys(diff).length) updates.push({ id, ...diff });
    }
  }
  const m: Model = {
    step,
    fields,
    deferred,
    report,
    // of each source object only what the second pass sets (480,000 interfaces kept whole would be a gigabyte)
    source: new Map(source.map((r) => [Number(r.id), deferred.size ? { id: r.id, ...bodyOf(r, fields, (name) => deferred.has(name)) } : { id: r.id }])),
    target: new Set(there.keys()),
    fresh: new Set(creates.map((c) => Number(c.id))),
    refs,
  };
  const total = creates.length + updates.length;
  let done = 0;
  for (const batch of byDepth(creates, source)) {
    done = await write(o, m, 'POST', batch, done, total);
  }
  await write(o, m, 'PATCH', updates, done, total);
  const refused = new Set(report.skipped.map((x) => x.id));
  for (const id of m.fresh) if (!refused.has(id) && !o.dryRun) m.target.add(id);
  report.ms += Date.now() - t0;
  return m;
}

/** A user's password is required on create and never read: a random one (users sign in once a password is set here). */
function withSecret(body: Row, fields: Map<string, Schema>, rep: Row): Row {
  if (fields.has('password') && !('password' in rep)) return { ...body, password: randomBytes(24).toString('base64url') };
  return body;
}

/**
 * Creates of a tree in batches of one depth each, parents first: a create
 * resolves every reference before it inserts, so a child cannot name a
 * parent created in the same request.
 */
function byDepth(creates: Row[], source: Row[]): Row[][] {
  const depth = new Map(source.map((r) => [Number(r.id), Number(r._depth ?? 0)]));
  const out = new Map<number, Row[]>();
  for (const c of creates) {
    const d = depth.get(Number(c.id)) ?? 0;
    if (!out.has(d)) out.set(d, []);
    out.get(d)!.push(c);
  }
  return [...out.keys()].sort((a, b) => a - b).map((d) => out.get(d)!);
}

/** The deferred fields, once every object exists; an object created in this run is not counted again as updated. */
async function secondPass(o: SyncOptions, m: Model): Promise<void> {
  const only = (name: string) => m.deferred.has(name);
  // objects this run created have none of their deferred fields set: the target is read only for the others (a first import of 480,000 interfaces reads none back)
  const older = [...m.source.keys()].some((id) => !m.fresh.has(id));
  const target = new Map((older ? ((await o.to.all(m.step.path, m.step.read)) ?? []) : []).map((r) => [Number(r.id), r]));
  const updates: Row[] = [];
  for (const [id, rep] of m.source) {
    const existing = target.get(id);
    if (!existing && !m.fresh.has(id)) continue;
    if (!existing && !o.dryRun && !m.target.has(id)) continue; // refused in the first pass
    const body = bodyOf(rep, m.fields, only);
    const diff = existing ? changedFields(body, bodyOf(existing, m.fields, only)) : nonNull(body);
    const cf = customFieldsLater(m.refs.get(id), existing);
    if (cf) diff.custom_fields = cf;
    if (Object.keys(diff).length) updates.push({ id, ...diff });
  }
  await write(o, m, 'PATCH', updates, 0, updates.length, (item) => !m.fresh.has(Number(item.id)));
  const what = [...m.deferred, ...(m.refs.size ? ['custom fields naming objects'] : [])].join(', ');
  if (updates.length) o.progress.line(m.report, `${updates.length} with ${what} set in the second pass`);
  // the second pass was the last use of the source's fields: ids are enough for the deletions
  m.source = new Map([...m.source.keys()].map((id) => [id, { id }]));
}

/** The custom field values naming objects that the target does not have yet (a partial custom_fields write keeps the others). */
function customFieldsLater(wanted: Row | undefined, existing: Row | undefined): Row | null {
  if (!wanted) return null;
  const theirs = (customFieldsOf(existing?.custom_fields) ?? {}) as Row;
  const diff = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => canonical(v) !== canonical(theirs[k])));
  return Object.keys(diff).length ? diff : null;
}

const nonNull = (body: Row) => Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null && canonical(v) !== '[]'));

/** What the source no longer has. */
async function deletions(o: SyncOptions, m: Model): Promise<void> {
  const gone = [...m.target].filter((id) => !m.source.has(id)).map((id) => ({ id }));
  await write(o, m, 'DELETE', gone, 0, gone.length);
  if (gone.length) o.progress.line(m.report, `${m.report.deleted} ${o.dryRun ? 'to delete' : 'deleted'} (not in the source)`);
}

/**
 * Writes `items` in pages (nothing in a dry run, where only the counts are
 * kept); `counts` says which written items the report counts (all by default).
 */
async function write(o: SyncOptions, m: Model, method: Method, items: Row[], done: number, total: number, counts: (item: Row) => boolean = () => true): Promise<number> {
  const key = method === 'POST' ? 'created' : method === 'PATCH' ? 'updated' : 'deleted';
  const pages = Array.from({ length: Math.ceil(items.length / o.pageSize) }, (_, i) => items.slice(i * o.pageSize, (i + 1) * o.pageSize));
  // in waves of `concurrency` pages, each wave awaited whole: a stop (a failure, afterPage) leaves no page half sent behind it
  for (let w = 0; w < pages.length; w += o.concurrency) {
    const wave = pages.slice(w, w + o.concurrency);
    // the last wave waits for the target's readers, so the next model's writes see this one's objects everywhere
    const api = w + o.concurrency >= pages.length ? o.to : (o.toNoWait ?? o.to);
    const written = await Promise.all(wave.map((page) => (o.dryRun ? page : send(o, m, method, page, api))));
    for (const [k, page] of wave.entries()) {
      m.report[key] += written[k].filter(counts).length;
      done += page.length;
      o.progress.page(m.report, done, total);
      if (!o.dryRun) await o.afterPage?.(m.report.model, w + k + 1);
    }
  }
  return done;
}

type Method = 'POST' | 'PATCH' | 'DELETE';

/**
 * One page, the objects written returned. A page our validation refuses is
 * written not at all (all or none): with `stop` the import stops naming the
 * object and its fields; with `skip` the refused objects are recorded and
 * the page sent again without them (one object at a time when the answer
 * does not say which: a delete that something protects).
 */
async function send(o: SyncOptions, m: Model, method: Method, page: Row[], api = o.to): Promise<Row[]> {
  const { status, body } = await api.request(method, m.step.path, method === 'DELETE' ? page.map((x) => ({ id: x.id })) : page);
  if (status >= 200 && status < 300) return page;
  const name = m.report.model;
  const refusal = status === 400 || status === 409;
  const named = status === 400 && Array.isArray(body) && body.length === page.length;
  const bad = named ? page.flatMap((item, i) => (Object.keys((body[i] ?? {}) as Row).length ? [{ item, errors: body[i] as unknown }] : [])) : [];
  if (!refusal || (named && !bad.length)) {
    throw new ImportFailure(`${name}: ${method} of ${page.length} objects (ids ${String(page[0].id)}..${String(page[page.length - 1].id)}) answered ${status}: ${detailOf(body)}`);
  }
  if (o.onError === 'stop') {
    const first = bad[0] ?? { item: page[0], errors: body };
    const which = bad[0] || page.length === 1 ? `id ${String(first.item.id)}` : `one of ids ${String(page[0].id)}..${String(page[page.length - 1].id)}`;
    throw new ImportFailure(`${name} ${which} refused (${method}, ${status}): ${fieldMessages(first.errors)}; nothing of its page was written (--on-error=skip goes on without it)`);
  }
  if (!named && page.length > 1) {
    const out: Row[] = [];
    for (const item of page) out.push(...(await send(o, m, method, [item], api)));
    return out;
  }
  const refused = named ? bad : [{ item: page[0], errors: body }];
  for (const r of refused) m.report.skipped.push({ model: name, id: Number(r.item.id), errors: r.errors });
  const gone = new Set(refused.map((r) => r.item.id));
  const rest = page.filter((item) => !gone.has(item.id));
  return rest.length ? send(o, m, method, rest, api) : [];
}

/** `field: message; field: message` of a DRF error body. */
export function fieldMessages(errors: unknown): string {
  if (!errors || typeof errors !== 'object') return String(errors);
  return Object.entries(errors as Row)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' ') : typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('; ');
}
