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
 * Records one change event as an object change, in the consumer's
 * transaction: one row, with the object's nested form as this change left
 * it (none for a delete). Earlier rows are not rewritten: a change shows its
 * object as it is now by reading the object's newest change (the model's
 * decorate hook), so the n-th change of an object costs one insert, not n
 * updates.
 */
export function changelogHandler(ctx: ServiceContext): (event: ChangeEvent, tx: ConsumerTx) => Promise<void> {
  const table = raw(ctx.db.table(objectChange.table));
  const users = new UserIds(ctx);
  return async (event, tx) => {
    const action = ACTION[event.event];
    if (!action) return; // not an object change (job events and the like)
    const data = (event.data ?? null) as Row | null;
    const nested = action === 'delete' ? null : nestedOf(data);
    const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
    const userId = await users.of(event.username);
    await tx.query(sql`
      INSERT INTO ${table} (time, user_id, user_name, request_id, action, changed_object_type, changed_object_id,
                            changed_object, prechange_data, postchange_data, object_repr)
      VALUES (${event.timestamp}::timestamptz, ${userId}, ${event.username ?? ''}, ${(event.request_id ?? '').toLowerCase()}, ${action},
              ${event.model.toLowerCase()}, ${event.object_id}, ${json(nested)}::jsonb,
              ${json(event.snapshots?.prechange)}::jsonb, ${json(event.snapshots?.postchange)}::jsonb,
              ${String(data?.display ?? '').slice(0, 200)})`);
  };
}

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
  also: ((event: ChangeEvent, tx: ConsumerTx) => Promise<void>)[] = [],
): Changelog {
  const record = changelogHandler(ctx);
  const handler = async (event: ChangeEvent, tx: ConsumerTx) => {
    await record(event, tx);
    for (const follow of also) await follow(event, tx);
  };
  const consumer = config.AMQP_URL
    ? new EventConsumer({
        amqpUrl: config.AMQP_URL,
        databaseUrl: config.DATABASE_URL,
        schema: ctx.name,
        queue,
        bindings: CHANGELOG_QUEUE.bindings,
        handler,
        metrics: ctx.metrics,
        sourceOf: (event) => eventSource(ctx, event),
        // a write is answered once its change is in the log (CONSISTENCY_WAIT_MS bounds the wait)
        confirm: (events) => ctx.consistency?.confirm(queue, events.map((e) => ({ id: e.id, owner: eventSource(ctx, e) }))),
        // a burst of writes is recorded a batch per transaction (every effect of the handler is in it)
        batchSize: 100,
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
