import { CHANGELOG_QUEUE, EventConsumer, type ChangeEvent, type ConsumerTx } from '@inventory/events';
import { sql, raw } from '@inventory/filtering';
import { Cache, type BaseConfig } from '@inventory/core';
import { eventSource, periodic, type ServiceContext } from '@inventory/rest';
import { objectChange } from './models';

const ACTION = { created: 'create', updated: 'update', deleted: 'delete' } as const;

/**
 * Keys of NetBox's nested (minimal) representations, kept from the event's
 * data for `changed_object` besides id, url and display. The event carries
 * the full representation only; extras does not know each model's brief
 * fields, so these are the ones NetBox's nested serializers use.
 */
const NESTED_KEYS = [
  'name', 'slug', 'username', 'label', 'model', 'manufacturer', 'family', 'address', 'prefix', 'start_address', 'end_address',
  'vid', 'cid', 'asn', 'rd', 'ssid', 'identifier', 'device', 'device_type', 'module_type', 'virtual_machine', 'circuit',
  'term_side', 'cable', '_occupied', '_depth', 'color',
];

type Row = Record<string, unknown>;

/** `changed_object` from the event's data: its nested form, or its display string when it has no URL of its own. */
export function nestedOf(data: unknown): unknown {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return null;
  const d = data as Row;
  if (d.id === undefined || typeof d.url !== 'string') return typeof d.display === 'string' ? d.display : null;
  const out: Row = { id: d.id, url: d.url, display: d.display ?? '' };
  for (const k of NESTED_KEYS) if (k in d) out[k] = d[k];
  return out;
}

/** Usernames resolved to user ids (users live in the users service), for a few minutes. */
class UserIds {
  // boxed: Cache keeps no undefined, and an unknown username (null id) is worth remembering too
  private readonly cache = new Cache<string, { id: number | null }>({ max: 10_000, ttlMs: 300_000 });
  constructor(private readonly ctx: ServiceContext) {}

  async of(username: string): Promise<number | null> {
    if (!username || !this.ctx.refs.has('users')) return null;
    try {
      const hit = await this.cache.load(username, async () => {
        const res = await this.ctx.refs.call<{ ids: Record<string, number[]> }>('users', 'POST', '/internal/keys', {
          model: 'auth.user',
          key: 'username',
          values: [username],
        });
        return { id: res.ids[username]?.[0] ?? null };
      });
      return hit!.id;
    } catch (err) {
      // the change is recorded all the same: user_name always, the user id when it can be had
      this.ctx.log.warn({ err: (err as Error).message, username }, 'change log: user not resolved');
      return null;
    }
  }
}

/**
 * Records change events as object changes, in the consumer's transaction:
 * one row each, with the object's nested form as the change left it (none
 * for a delete), all of a batch in one INSERT. Earlier rows are not
 * rewritten: a change shows its object as it is now by reading the object's
 * newest change (the model's decorate hook), so the n-th change of an
 * object costs one row, not n updates.
 */
export function changelogHandler(ctx: ServiceContext): (events: ChangeEvent[], tx: ConsumerTx) => Promise<void> {
  const table = raw(ctx.db.table(objectChange.table));
  const users = new UserIds(ctx);
  return async (events, tx) => {
    const rows: Row[] = [];
    for (const event of events) {
      const action = ACTION[event.event];
      if (!action) continue; // not an object change (job events and the like)
      if (event.import && !event.import.changelog) continue; // an import's, recorded only when it asked (--changelog)
      const data = (event.data ?? null) as Row | null;
      rows.push({
        time: event.timestamp,
        user_id: await users.of(event.username),
        user_name: event.username ?? '',
        request_id: (event.request_id ?? '').toLowerCase(),
        action,
        changed_object_type: event.model.toLowerCase(),
        changed_object_id: event.object_id,
        changed_object: action === 'delete' ? null : nestedOf(data),
        prechange_data: event.snapshots?.prechange ?? null,
        postchange_data: event.snapshots?.postchange ?? null,
        object_repr: String(data?.display ?? '').slice(0, 200),
      });
    }
    if (!rows.length) return;
    await tx.query(sql`
      INSERT INTO ${table} (time, user_id, user_name, request_id, action, changed_object_type, changed_object_id,
                            changed_object, prechange_data, postchange_data, object_repr)
      SELECT r.time, r.user_id, r.user_name, r.request_id, r.action, r.changed_object_type, r.changed_object_id,
             r.changed_object, r.prechange_data, r.postchange_data, r.object_repr
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS r(time timestamptz, user_id bigint, user_name text, request_id text, action text, changed_object_type text, changed_object_id bigint,
               changed_object jsonb, prechange_data jsonb, postchange_data jsonb, object_repr text)`);
  };
}

/** Most events recorded in one transaction: a bulk write's thousand in two, not ten (writers wait for the log). */
const CHANGELOG_BATCH = 500;

export interface Changelog {
  start(): void;
  stop(): Promise<void>;
  /** The consumer, when a broker is configured. */
  consumer: EventConsumer | null;
}

/**
 * The change log's background work: the consumer (when `AMQP_URL` is set)
 * and the retention (`CHANGELOG_RETENTION` days; 0 keeps everything), pruned
 * at start and hourly.
 */
export function changelog(
  ctx: ServiceContext,
  config: BaseConfig,
  retentionDays: number,
  queue = CHANGELOG_QUEUE.name,
  /** What else follows every event, in the same transaction (bookmarks follow their objects). */
  also: ((events: ChangeEvent[], tx: ConsumerTx) => Promise<void>)[] = [],
): Changelog {
  const record = changelogHandler(ctx);
  const batchHandler = async (events: ChangeEvent[], tx: ConsumerTx) => {
    await record(events, tx);
    for (const follow of also) await follow(events, tx);
  };
  const consumer = config.AMQP_URL
    ? new EventConsumer({
        amqpUrl: config.AMQP_URL,
        databaseUrl: config.DATABASE_URL,
        schema: ctx.name,
        queue,
        bindings: CHANGELOG_QUEUE.bindings,
        batchHandler,
        metrics: ctx.metrics,
        sourceOf: (event) => eventSource(ctx, event),
        // a write is answered once its change is in the log (CONSISTENCY_WAIT_MS bounds the wait)
        confirm: (events) => ctx.consistency?.confirm(queue, events.map((e) => ({ id: e.id, owner: eventSource(ctx, e) }))),
        // a burst of writes is recorded a batch per transaction (every effect of the handler is in it)
        batchSize: CHANGELOG_BATCH,
        prefetch: CHANGELOG_BATCH * 2,
        log: ctx.log,
      })
    : null;
  if (consumer) ctx.consistency?.addReader(queue, consumer);
  const prune = async () => {
    try {
      await ctx.db.query(sql`DELETE FROM ${raw(ctx.db.table(objectChange.table))} WHERE time < now() - make_interval(days => ${retentionDays})`);
    } catch (err) {
      ctx.log.warn({ err: (err as Error).message }, 'change log: pruning failed');
    }
  };
  const pruning = retentionDays > 0 ? periodic(prune, 3_600_000) : null;
  return {
    consumer,
    start() {
      consumer?.start();
      pruning?.start();
    },
    async stop() {
      await pruning?.stop();
      await consumer?.stop();
    },
  };
}
