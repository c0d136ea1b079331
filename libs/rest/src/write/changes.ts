import { appendOutboxJson, newEventId, notifyOutbox, storedEvent, type ChangeEvent, type EventKind } from '@inventory/events';
import {
  type WrittenEvent,
  type Queryable,
  columnOf,
  isoDateTime,
  networkText,
  type ModelDef,
  type ServiceContext,
  type Change,
  type Row,
  type Touched,
  type WriteContext,
} from '../model';
import { fetchByIds, linkedIds, represent } from '../read';
import { referenceOf } from '../projections';

/**
 * The change records of a write, made inside its transaction: each touched
 * object's rows and representations before and after, one change event per
 * object written to the service's outbox (committed, or rolled back, with
 * the write itself).
 */

/**
 * Keeps the full representations of rows about to be changed or deleted
 * (their `prechange` data), once per object per write. Handlers call it
 * right after locking the rows.
 */
export async function capture(ctx: ServiceContext, model: ModelDef, wctx: WriteContext, locked: Row[]): Promise<void> {
  const pre = (wctx.prechange ??= new Map());
  const missing = locked.filter((r) => !pre.has(keyOf(model, r.id)));
  if (!missing.length) return;
  // read again with the count annotations, so the prechange data is the complete representation
  const rows = await fetchByIds(ctx, model, missing.map((r) => Number(r.id)), wctx.tx);
  const reps = await represent(ctx, model, rows, { mode: 'full', base: wctx.base ?? '', q: wctx.tx });
  reps.forEach((rep) => pre.set(keyOf(model, rep.id), rep));
}

/** Records changes to objects the handler does not name (tree descendants, cascaded deletes, cleared references). */
export function noteTouched(wctx: WriteContext, model: ModelDef, touched: Touched): void {
  (wctx.also ??= []).push({ model, touched });
}

const keyOf = (model: ModelDef, id: unknown) => `${model.label}:${String(id)}`;

/**
 * NetBox's snapshot of an object (serialize_object): stored values, relations
 * as ids, custom fields, tag names, timestamps.
 */
export function snapshotOf(model: ModelDef, row: Row, rep: Row | undefined): Row {
  const out: Row = { id: Number(row.id) };
  for (const [name, column, network] of snapshotPlan(model)) {
    if (column) out[name] = network ? networkText(row[column]) : (row[column] ?? null);
    else out[name] = (rep && linkedIds(rep, name)) ?? ((rep?.[name] as Row[] | undefined) ?? []).map((o) => (typeof o === 'object' && o ? o.id : o));
  }
  if (model.customFields) out.custom_fields = row.custom_field_data ?? {};
  if (model.tags) out.tags = ((rep?.tags as Row[] | undefined) ?? []).map((t) => t.name);
  if (model.timestamps) {
    out.created = isoDateTime(row.created);
    out.last_updated = isoDateTime(row.last_updated);
  }
  // what the change log and the events must not keep (a data source's password)
  model.hooks.snapshot?.(out);
  return out;
}

/**
 * Per model, the snapshot's fields in order with their columns (null: an m2m, as ids) and whether
 * the column is a network type (text with its mask): worked out once, not per object.
 */
const plans = new WeakMap<ModelDef, [string, string | null, boolean][]>();
function snapshotPlan(model: ModelDef): [string, string | null, boolean][] {
  let plan = plans.get(model);
  if (!plan) {
    plan = [];
    for (const [name, field] of Object.entries(model.fields)) {
      if (field.writeOnly) continue;
      const column = columnOf(name, field);
      if (column || field.type === 'm2m') plan.push([name, column, field.type === 'cidr' || field.type === 'inet']);
    }
    plans.set(model, plan);
  }
  return plan;
}

export interface Recorded {
  changes: Change[];
  /** The written objects (created and updated) as they now are: rows and representations by id. */
  rows: Map<number, Row>;
  reps: Map<number, Row>;
  /** Every event the write produced (its cascades' and moved descendants' too), for the consistency wait. */
  events: WrittenEvent[];
}

/**
 * Reads what the write left, builds one event per touched object (the
 * handler's, then those noted on the way: descendants, cascades) and appends
 * them to the outbox. Changes and representations returned are the model's own.
 */
export async function recordChanges(ctx: ServiceContext, model: ModelDef, wctx: WriteContext, touched: Touched): Promise<Recorded> {
  const events = new OutboxWriter(wctx.tx, ctx.name);
  const seen = new Set<string>();
  const own = await recordGroup(ctx, model, wctx, touched, events, seen);
  for (const other of wctx.also ?? []) await recordGroup(ctx, other.model, wctx, other.touched, events, seen);
  await events.done();
  return { ...own, events: events.written };
}

/** Events per outbox INSERT: a bulk write's events go in several, each serialized while PostgreSQL stores the one before. */
const OUTBOX_CHUNK = 1000;

/**
 * The events of one write, appended to the outbox in chunks as they are
 * made: a full chunk is serialized at once and its INSERT follows the
 * previous one's (one statement at a time on the transaction's connection),
 * so PostgreSQL stores a chunk while the next is built. The relay is woken
 * once, at the end.
 */
class OutboxWriter {
  private buffer: ChangeEvent[] = [];
  private chain: Promise<void> = Promise.resolve();
  private any = false;
  /** What was pushed, in order. */
  readonly written: WrittenEvent[] = [];

  constructor(
    private readonly tx: Queryable,
    private readonly schema: string,
  ) {}

  /** Adds an event; after a chunk was sent, yields to the event loop so that a stored chunk lets the next one go. */
  async push(event: ChangeEvent): Promise<void> {
    this.buffer.push(event);
    this.written.push({ id: event.id, model: event.model });
    this.any = true;
    if (this.buffer.length < OUTBOX_CHUNK) return;
    this.flush();
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** Resolves once every chunk sent so far is stored: before the transaction's next statement. */
  idle(): Promise<void> {
    return this.chain;
  }

  /** Stores what is left, waking the relay at commit in the same statement (or in one of its own when nothing was left). */
  async done(): Promise<void> {
    const last = this.flush(true);
    await this.chain;
    if (this.any && !last) await notifyOutbox(this.tx, this.schema);
  }

  private flush(notify = false): boolean {
    if (!this.buffer.length) return false;
    const text = JSON.stringify(this.buffer.map(storedEvent));
    this.buffer = [];
    this.chain = this.chain.then(() => appendOutboxJson(this.tx, this.schema, text, notify));
    // awaited by idle() or done(); a failure meanwhile must not surface as an unhandled rejection
    this.chain.catch(() => undefined);
    return true;
  }
}

async function recordGroup(
  ctx: ServiceContext,
  model: ModelDef,
  wctx: WriteContext,
  touched: Touched,
  events: OutboxWriter,
  seen: Set<string>,
): Promise<Omit<Recorded, 'events'>> {
  const { tx } = wctx;
  const before = new Map<number, Row>();
  for (const r of [...(touched.updated ?? []), ...(touched.deleted ?? [])]) before.set(Number(r.id), r);
  const liveIds = [...(touched.created ?? []), ...(touched.updated ?? []).map((r) => Number(r.id))];
  await events.idle();
  // with their count annotations: the representation is the response's
  const after = liveIds.length ? await fetchByIds(ctx, model, liveIds, tx) : [];
  const rows = new Map(after.map((r) => [Number(r.id), r]));
  const reps = new Map((await represent(ctx, model, after, { mode: 'full', base: wctx.base ?? '', q: tx })).map((rep) => [Number(rep.id), rep]));
  // objects nobody captured before changing them: their current state stands for the prechange one
  const uncaptured = [...before.values()].filter((r) => !wctx.prechange?.has(keyOf(model, r.id)));
  if (uncaptured.length) await capture(ctx, model, wctx, uncaptured);

  const timestamp = new Date().toISOString();
  const username = wctx.identity.user?.username ?? '';
  const changes: Change[] = [];
  const add = async (kind: EventKind, id: number) => {
    if (seen.has(keyOf(model, id))) return; // one event per object per write
    seen.add(keyOf(model, id));
    const b = before.get(id) ?? null;
    const a = rows.get(id) ?? null;
    const pre = wctx.prechange?.get(keyOf(model, id));
    const post = reps.get(id);
    changes.push({ before: b, after: a });
    await events.push({
      id: newEventId(),
      event: kind,
      model: model.label,
      object_id: id,
      version: Number((a ?? b)?._version ?? 1),
      timestamp,
      username,
      request_id: wctx.requestId,
      data: post ?? pre ?? null,
      snapshots: { prechange: b ? snapshotOf(model, b, pre) : null, postchange: a ? snapshotOf(model, a, post) : null },
      reference: referenceOf(model, (a ?? b) as Row, post ?? pre),
      ...(wctx.importing ? { import: wctx.importing } : {}),
    });
  };
  for (const id of touched.created ?? []) await add('created', id);
  for (const r of touched.updated ?? []) await add('updated', Number(r.id));
  for (const r of touched.deleted ?? []) await add('deleted', Number(r.id));
  return { changes, rows, reps };
}
