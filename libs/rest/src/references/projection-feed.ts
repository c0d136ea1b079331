import { HttpError, runWithContext, type BaseConfig } from '@inventory/core';
import type { Identity } from '@inventory/auth';
import { EventConsumer, type AfterCommit, type ChangeEvent, type ConsumerTx } from '@inventory/events';
import { type WrittenEvent, type ModelDef, type ServiceContext, type Row, type Touched, type WriteContext, TAGGED_ITEM_TABLE } from '../model';
import { snapshotOf, runChange, applyReferrerRule, removeGenericReferrers, unlinkReferrers } from '../write';
import { applyRecords, projectedModels, projection, recordOf, type ProjectionRecord, type SnapshotPage, referenceOf, dropReservations } from '../projections';
import { represent } from '../read';
import { sql, raw, ident } from '@inventory/filtering';

/** How the projections are fed: the owners' events (one consumer per service), their snapshots when empty. */

const SNAPSHOT_PAGE = 1000;

/** The queue of a service's projections (its replicas share it). */
export const projectionQueue = (service: string): string => `${service}.projections`;

/** Stored rows of one of this service's models as projection records (what referrers keep of them). */
export async function recordsFor(ctx: ServiceContext, model: ModelDef, rows: Row[]): Promise<ProjectionRecord[]> {
  const reps = await represent(ctx, model, rows, { mode: 'full', base: '' });
  return rows.map((row, i) => {
    const ref = referenceOf(model, row, reps[i]);
    return { id: Number(row.id), version: Number(row._version ?? 1), deleted: false, nested: ref.nested, data: snapshotOf(model, row, reps[i]), sort: ref.sort, path: ref.path ?? null };
  });
}

/** The owner's side of a backfill: one page of a model's objects, by id. */
export async function snapshotPage(ctx: ServiceContext, model: ModelDef, after: number, limit: number): Promise<SnapshotPage> {
  const rows = await ctx.db.query(sql`SELECT * FROM ${raw(ctx.db.table(model.table))} WHERE id > ${after} ORDER BY id LIMIT ${limit}`);
  return { records: await recordsFor(ctx, model, rows), next: rows.length === limit ? Number(rows[rows.length - 1].id) : null };
}

/**
 * Whether a projection needs its owner's snapshot: empty (a new deployment)
 * or holding another number of live objects than the owner has (events lost
 * with a queue, an outage longer than it kept them). The owner not answering
 * counts as behind, so the backfill is tried (and retried) later.
 */
async function behind(ctx: ServiceContext, label: string): Promise<boolean> {
  const [local] = await ctx.db.query(sql`SELECT count(*) FILTER (WHERE NOT deleted)::int AS live, count(*)::int AS all FROM ${projection(ctx, label)}`);
  if (Number(local.all) === 0) return true;
  const owner = ctx.refs.ownerOf(label);
  if (!ctx.refs.has(owner)) return false;
  try {
    const answer = await ctx.refs.call<{ count: number }>(owner, 'POST', '/internal/summary', { model: label });
    return answer.count !== Number(local.live);
  } catch (err) {
    return !(err instanceof HttpError && err.status === 400); // a model the owner does not serve yet has nothing to copy
  }
}

/** Fills a projection from its owner's snapshot (version-checked: newer events win); false when the owner could not be asked (tried again later). */
export async function backfill(ctx: ServiceContext, label: string): Promise<boolean> {
  const owner = ctx.refs.ownerOf(label);
  if (!ctx.refs.has(owner)) return true; // not deployed: nothing to copy
  let after = 0;
  for (;;) {
    let page: SnapshotPage;
    try {
      page = await ctx.refs.call<SnapshotPage>(owner, 'POST', '/internal/snapshot', { model: label, after, limit: SNAPSHOT_PAGE });
    } catch (err) {
      // an owner that does not serve the model yet (dcim before its devices exist) has nothing to copy
      if (err instanceof HttpError && err.status === 400) return true;
      ctx.log.warn({ model: label, owner, err: (err as Error).message }, 'projection backfill: owner not answering, retried later');
      return false;
    }
    await applyRecords(ctx, ctx.db, label, page.records);
    if (page.next === null) return true;
    after = page.next;
  }
}

/**
 * The references of this service to deleted objects of `label`: CASCADE
 * deletes the referrers, SET_NULL clears the reference, each in this
 * service's own unit of work (their own events and change-log entries, by
 * the user whose delete caused them). PROTECT references were refused by the
 * owner; one left by a race is logged, not touched.
 */
export async function applyDeleteRules(ctx: ServiceContext, label: string, ids: number[], by: { username: string; requestId: string }): Promise<WrittenEvent[]> {
  const written: WrittenEvent[] = [];
  if (!ids.length) return written;
  const identity: Identity = { user: { id: 0, username: by.username, is_superuser: true, is_staff: true, is_active: true }, token: null, permissions: [], service: ctx.name };
  const change = async (model: ModelDef, work: (wctx: WriteContext) => Promise<Touched>) => {
    const { recorded } = await runWithContext({ requestId: by.requestId, queries: 0 }, () => runChange(ctx, model, identity, async (wctx) => ({ touched: await work(wctx) })));
    written.push(...recorded.events);
  };
  for (const model of ctx.models.values()) {
    for (const [name, field] of Object.entries(model.fields)) {
      if (field.type === 'generic') {
        await deleteGenericReferrers(ctx, model, field.typeField, field.idField, label, ids, change);
        continue;
      }
      // links to the deleted objects go; the objects that held them are updated, each with its event
      if (field.type === 'm2m' && field.to === label && !model.readOnly) {
        await change(model, (wctx) => unlinkReferrers(ctx, model, name, ids, wctx));
        continue;
      }
      if (field.type !== 'fk' || field.virtual || field.to !== label) continue;
      const column = ident(`${name}_id`);
      const table = raw(ctx.db.table(model.table));
      if (field.onDelete === 'PROTECT') {
        const left = await ctx.db.query(sql`SELECT id FROM ${table} WHERE ${column} = ANY(${ids}::bigint[])`);
        if (left.length) ctx.log.warn({ model: model.label, field: name, target: label, ids: left.map((r) => r.id) }, 'references to a deleted object left in place (PROTECT)');
        continue;
      }
      const rule = field.onDelete;
      await change(model, (wctx) => applyReferrerRule(ctx, model, name, rule, ids, wctx));
    }
  }
  return written;
}

/** Objects attached to deleted objects by a generic relation (contact assignments) go with them, as in NetBox. */
async function deleteGenericReferrers(
  ctx: ServiceContext,
  model: ModelDef,
  typeField: string,
  idField: string,
  label: string,
  ids: number[],
  change: (model: ModelDef, work: (wctx: WriteContext) => Promise<Touched>) => Promise<void>,
): Promise<void> {
  const [any] = await ctx.db.query(
    sql`SELECT 1 FROM ${raw(ctx.db.table(model.table))} WHERE ${ident(typeField)} = ${label} AND ${ident(idField)} = ANY(${ids}::bigint[]) LIMIT 1`,
  );
  if (!any) return;
  await change(model, async (wctx) => ({ deleted: await removeGenericReferrers(ctx, model, typeField, idField, label, ids, wctx) }));
}

/** Referenced ids of `label` whose projection says they are gone (tombstoned), for the repair at start. */
async function goneReferences(ctx: ServiceContext, label: string): Promise<number[]> {
  const ids = new Set<number>();
  for (const model of ctx.models.values()) {
    for (const [name, field] of Object.entries(model.fields)) {
      if (field.type === 'generic') {
        const rows = await ctx.db.query(
          sql`SELECT DISTINCT r.${ident(field.idField)} AS id FROM ${raw(ctx.db.table(model.table))} r JOIN ${projection(ctx, label)} p ON p.id = r.${ident(field.idField)} WHERE r.${ident(field.typeField)} = ${label} AND p.deleted`,
        );
        for (const r of rows) ids.add(Number(r.id));
        continue;
      }
      if (field.type === 'm2m' && field.to === label) {
        const rows = await ctx.db.query(
          sql`SELECT DISTINCT l.target_id AS id FROM ${raw(ctx.db.table(field.through))} l JOIN ${projection(ctx, label)} p ON p.id = l.target_id WHERE p.deleted`,
        );
        for (const r of rows) ids.add(Number(r.id));
        continue;
      }
      if (field.type !== 'fk' || field.virtual || field.to !== label || field.onDelete === 'PROTECT') continue;
      const rows = await ctx.db.query(
        sql`SELECT DISTINCT r.${ident(`${name}_id`)} AS id FROM ${raw(ctx.db.table(model.table))} r JOIN ${projection(ctx, label)} p ON p.id = r.${ident(`${name}_id`)} WHERE p.deleted`,
      );
      for (const r of rows) ids.add(Number(r.id));
    }
  }
  return [...ids];
}

/** The service that wrote an event: the owner of its model (`webhooks` for `extras.webhook`), else its app. */
export function eventSource(ctx: ServiceContext, event: ChangeEvent): string {
  try {
    return ctx.refs.ownerOf(event.model);
  } catch {
    return event.model.split('.')[0];
  }
}

export interface ProjectionFeed {
  /** Starts the consumer, then backfills empty projections and repairs references to deleted objects (in the background, retried). */
  start(): void;
  stop(): Promise<void>;
  /** Resolves once every projection was backfilled (or found filled) and repaired. */
  readonly settled: Promise<void>;
  consumer: EventConsumer | null;
}

/** extras' models whose definitions a service caches (RemoteExtras). */
const DEFINITIONS = new Set(['extras.tag', 'extras.customfield', 'extras.customfieldchoiceset']);

/** Most events applied to the projections in one transaction. */
const PROJECTION_BATCH = 500;

/**
 * Applies a batch of owners' events to the projections: one upsert per
 * model (records win by version, so their order in the batch does not
 * matter). A tombstone locks the deleted object's row until the commit, so a
 * write here that names the object (`resolveRefs` locks what it resolves)
 * either committed before, and the delete rules below find it, or waits and
 * then finds the object gone. The rules of the deleted objects run after the
 * commit, each in this service's own unit of work, by the user whose delete
 * caused them (inside the batch's transaction, a write waiting on its locks
 * could wait on them in turn); one that fails is left to the repair, which
 * finds references to tombstones. The batch counts as applied (confirmed to
 * its owners) once the rules' own events have reached the services that read
 * them.
 */
async function applyEvents(
  ctx: ServiceContext,
  projected: Map<string, unknown>,
  events: ChangeEvent[],
  tx: ConsumerTx,
  repair: () => void,
): Promise<AfterCommit | undefined> {
  const mine = events.filter((e) => projected.has(e.model));
  const byModel = new Map<string, ProjectionRecord[]>();
  for (const e of mine) (byModel.get(e.model) ?? byModel.set(e.model, []).get(e.model)!).push(recordOf(e));
  for (const [model, records] of byModel) {
    await applyRecords(ctx, tx, model, records);
    // the owner's delete is decided: writes that waited on its reservation now find the object gone
    await dropReservations(tx, ctx, model, records.filter((r) => r.deleted).map((r) => r.id));
  }
  // cached definitions go before the owner hears that this service shows the change (extras answers from its committed state)
  if (mine.some((e) => DEFINITIONS.has(e.model))) ctx.extras.invalidate();
  // a deleted tag leaves the objects it tagged (no change of theirs is recorded, as in NetBox)
  const tags = mine.filter((e) => e.event === 'deleted' && e.model === 'extras.tag').map((e) => Number(e.object_id));
  if (tags.length) await tx.query(sql`DELETE FROM ${raw(ctx.db.table(TAGGED_ITEM_TABLE))} WHERE tag_id = ANY(${tags}::bigint[])`);
  const deletes = new Map<string, { model: string; ids: number[]; by: { username: string; requestId: string } }>();
  for (const e of mine.filter((e) => e.event === 'deleted')) {
    const by = { username: e.username ?? '', requestId: e.request_id ?? '' };
    const key = JSON.stringify([e.model, by.username, by.requestId]);
    const group = deletes.get(key) ?? deletes.set(key, { model: e.model, ids: [], by }).get(key)!;
    group.ids.push(Number(e.object_id));
  }
  if (!deletes.size) return undefined;
  return async () => {
    const derived: WrittenEvent[] = [];
    try {
      for (const { model, ids, by } of deletes.values()) derived.push(...(await applyDeleteRules(ctx, model, ids, by)));
    } catch (err) {
      ctx.log.warn({ err: (err as Error).message }, 'delete rules failed; the repair applies them');
      repair();
    }
    const gate = ctx.consistency;
    return derived.length && gate ? { settled: gate.settle(derived).then(() => undefined) } : undefined;
  };
}

/** The feed of a service's projections: none when it projects nothing or has no broker. */
export function projectionFeed(ctx: ServiceContext, config: BaseConfig): ProjectionFeed {
  const projected = projectedModels(ctx);
  let settle: () => void = () => undefined;
  const settled = new Promise<void>((r) => (settle = r));
  if (!config.AMQP_URL || !projected.size) {
    settle();
    return { start: () => undefined, stop: async () => undefined, settled, consumer: null };
  }
  const consumer = new EventConsumer({
    amqpUrl: config.AMQP_URL,
    databaseUrl: config.DATABASE_URL,
    schema: ctx.name,
    queue: projectionQueue(ctx.name),
    bindings: [...projected.keys()].map((label) => `${label}.*`),
    log: ctx.log,
    // the lag of `<service>.projections` per owner: how far behind its owners a projection is
    metrics: ctx.metrics,
    sourceOf: (event) => eventSource(ctx, event),
    // a burst (a bulk write's thousand events) costs a transaction or two, not one per event
    batchSize: PROJECTION_BATCH,
    prefetch: PROJECTION_BATCH * 2,
    batchHandler: (events, tx) => applyEvents(ctx, projected, events, tx, () => scheduleSync(1_000)),
    // the owners' writes are answered once this service shows them
    confirm: (events) => ctx.consistency?.confirm(projectionQueue(ctx.name), events.map((e) => ({ id: e.id, owner: eventSource(ctx, e) }))),
  });
  ctx.consistency?.addReader(projectionQueue(ctx.name), consumer);
  let stopping = false;
  let timer: NodeJS.Timeout | null = null;
  let syncing: Promise<void> | null = null;
  /** Runs the sync in `ms` (once: a sync already planned or running covers it). */
  function scheduleSync(ms: number): void {
    if (stopping || timer) return;
    timer = setTimeout(() => {
      timer = null;
      syncing ??= sync().finally(() => (syncing = null));
    }, ms);
  }
  const sync = async (): Promise<void> => {
    let pending = 0;
    for (const label of projected.keys()) {
      if (stopping) return;
      try {
        if ((await behind(ctx, label)) && !(await backfill(ctx, label))) {
          pending++;
          continue;
        }
        const gone = await goneReferences(ctx, label);
        if (gone.length) await applyDeleteRules(ctx, label, gone, { username: '', requestId: '' });
      } catch (err) {
        ctx.log.warn({ model: label, err: (err as Error).message }, 'projection sync failed, retried later');
        pending++;
      }
    }
    if (!pending) settle();
    else scheduleSync(5_000);
  };
  return {
    consumer,
    settled,
    start() {
      consumer.start();
      scheduleSync(0);
    },
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      await syncing;
      await consumer.stop();
    },
  };
}
