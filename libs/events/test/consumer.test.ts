import amqp, { type ChannelModel } from 'amqplib';
import pg from 'pg';
import { Metrics } from '@inventory/core';
import { createTestDatabase, parseExposition, startBroker } from '@inventory/testkit';
import { sql } from '@inventory/filtering';
import {
  EVENTS_EXCHANGE,
  EventConsumer,
  PACK_HEADER,
  declareEventsExchange,
  newEventId,
  processedEventStatements,
  routingKey,
  type ChangeEvent,
  type ConsumerTx,
} from '@inventory/events';
import { sampleEvent, silent, until } from './fixtures';

/** The consumer helper against a real PostgreSQL and a real RabbitMQ. */
const SCHEMA = 'cons';
let db: { url: string; drop(): Promise<void> };
let broker: { url: string; stop(): Promise<void> };
let pool: pg.Pool;
let conn: ChannelModel;
const running: EventConsumer[] = [];

beforeAll(async () => {
  [db, broker] = await Promise.all([createTestDatabase(), startBroker()]);
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  await pool.query(`CREATE SCHEMA ${SCHEMA}`);
  for (const s of processedEventStatements(SCHEMA)) await pool.query(s);
  await pool.query(`CREATE TABLE ${SCHEMA}.applied (seq BIGSERIAL PRIMARY KEY, queue TEXT NOT NULL, event_id UUID NOT NULL, object_id BIGINT NOT NULL)`);
  conn = await amqp.connect(broker.url);
}, 120_000);
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()));
});
afterAll(async () => {
  await conn?.close();
  await pool?.end();
  await db?.drop();
  await broker?.stop();
});


/** Publishes as the relay does (message id = event id); `messageId` overrides it. */
async function publish(events: ChangeEvent[], messageId?: string): Promise<void> {
  const ch = await conn.createConfirmChannel();
  await declareEventsExchange(ch);
  for (const e of events) {
    ch.publish(EVENTS_EXCHANGE, routingKey(e), Buffer.from(JSON.stringify(e)), { persistent: true, messageId: messageId ?? e.id, contentType: 'application/json' });
  }
  await ch.waitForConfirms();
  await ch.close();
}

/** Records what it applies in the handler's transaction. */
const record = (queue: string) => async (e: ChangeEvent, tx: ConsumerTx) => {
  await tx.query(sql`INSERT INTO cons.applied (queue, event_id, object_id) VALUES (${queue}, ${e.id}, ${e.object_id})`);
};

function consumer(
  queue: string,
  pattern: string,
  handler: (e: ChangeEvent, tx: ConsumerTx) => Promise<void>,
  extra: { deliveryLimit?: number; batchSize?: number; prefetch?: number; metrics?: Metrics; sourceOf?: (e: ChangeEvent) => string } = {},
) {
  const c = new EventConsumer({ amqpUrl: broker.url, databaseUrl: db.url, schema: SCHEMA, queue, bindings: [pattern], handler, log: silent, prefetch: 5, ...extra });
  running.push(c);
  c.start();
  return c;
}

async function applied(queue: string): Promise<{ event_id: string; object_id: number }[]> {
  const { rows } = await pool.query(`SELECT event_id, object_id::int AS object_id FROM ${SCHEMA}.applied WHERE queue = $1 ORDER BY seq`, [queue]);
  return rows;
}

/** Waits until the consumer consumes (so its queue is declared and bound): events published before would be unroutable. */
async function declared(queue: string): Promise<void> {
  await until(async () => {
    const ch = await conn.createChannel();
    ch.on('error', () => undefined);
    try {
      const { consumerCount } = await ch.checkQueue(queue);
      await ch.close();
      return consumerCount > 0;
    } catch {
      return false;
    }
  });
}


test('when events are published, then each is applied once, in order, and recorded as processed', async () => {
  const c = consumer('test.arrive', 'tenancy.tenant.*', record('test.arrive'));
  await declared('test.arrive');
  const events = [sampleEvent('tenancy.tenant', 1), sampleEvent('tenancy.tenant', 1, 'updated'), sampleEvent('dcim.site', 5), sampleEvent('tenancy.tenant', 2, 'deleted')];
  await publish(events);
  await until(async () => (await applied('test.arrive')).length >= 3);
  await new Promise((r) => setTimeout(r, 200));
  expect((await applied('test.arrive')).map((r) => r.event_id)).toEqual([events[0].id, events[1].id, events[3].id]);
  expect(c.applied).toBe(3);
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${SCHEMA}._processed_event WHERE queue = 'test.arrive'`);
  expect(rows[0].n).toBe(3);
});

test('when one event is delivered twice (same message id), then it is applied once and the duplicate is acked', async () => {
  const c = consumer('test.dup', 'extras.tag.*', record('test.dup'));
  await declared('test.dup');
  const e = sampleEvent('extras.tag', 7);
  const other = sampleEvent('extras.tag', 8);
  await publish([e, e]);
  await publish([other]);
  await publish([e]);
  await until(() => c.applied + c.skipped >= 4);
  expect((await applied('test.dup')).map((r) => r.event_id)).toEqual([e.id, other.id]);
  expect(c.skipped).toBe(2);
  // nothing left unacked: the queue is empty
  const ch = await conn.createChannel();
  expect((await ch.checkQueue('test.dup')).messageCount).toBe(0);
  await ch.close();
});

test('when the handler fails, then nothing it wrote stays, the event comes again and is applied once', async () => {
  let attempts = 0;
  const c = consumer('test.fail', 'ipam.prefix.*', async (e, tx) => {
    await record('test.fail')(e, tx);
    attempts++;
    if (attempts === 1) throw new Error('boom');
  });
  await declared('test.fail');
  const e = sampleEvent('ipam.prefix', 3);
  await publish([e]);
  await until(() => c.applied >= 1);
  expect(attempts).toBe(2);
  expect(c.failed).toBe(1);
  expect((await applied('test.fail')).map((r) => r.event_id)).toEqual([e.id]);
});

test('when a message always fails, then after the delivery limit it is dead-lettered and later events still arrive', async () => {
  const poison = sampleEvent('ipam.vlan', 13);
  const c = consumer(
    'test.poison',
    'ipam.vlan.*',
    async (e, tx) => {
      if (e.id === poison.id) throw new Error('poison');
      await record('test.poison')(e, tx);
    },
    { deliveryLimit: 2 },
  );
  await declared('test.poison');
  const good = sampleEvent('ipam.vlan', 14);
  await publish([poison, good]);
  // a body that is no event goes to the dead letters at once
  const ch = await conn.createChannel();
  ch.publish(EVENTS_EXCHANGE, 'ipam.vlan.created', Buffer.from('not json'), { messageId: newEventId() });
  await until(async () => (await ch.checkQueue('test.poison.dead')).messageCount >= 2, 30_000);
  await until(async () => (await applied('test.poison')).length >= 1);
  expect((await applied('test.poison')).map((r) => r.event_id)).toEqual([good.id]);
  expect(c.failed).toBeGreaterThanOrEqual(2);
  await ch.close();
});

test('when the consumer restarts, then it carries on with what was published while it was away', async () => {
  const first = consumer('test.restart', 'circuits.#', record('test.restart'));
  await declared('test.restart');
  const before = sampleEvent('circuits.circuit', 1);
  await publish([before]);
  await until(() => first.applied >= 1);
  await first.stop();
  const later = [sampleEvent('circuits.circuit', 2), sampleEvent('circuits.provider', 3)];
  await publish(later);
  consumer('test.restart', 'circuits.#', record('test.restart'));
  await until(async () => (await applied('test.restart')).length >= 3);
  expect((await applied('test.restart')).map((r) => r.event_id)).toEqual([before.id, ...later.map((e) => e.id)]);
});

describe('in batches', () => {
  /** Stops a consumer's queue from being worked until `release` (so a backlog forms), by holding the first event's transaction. */
  const gate = () => {
    let open: () => void = () => undefined;
    const opened = new Promise<void>((r) => (open = r));
    return { opened, open };
  };

  test('when a backlog waits, then it is applied in a few transactions of up to batchSize, once each, in order', async () => {
    const g = gate();
    const sizes: number[] = [];
    let entered = false;
    const c = new EventConsumer({
      amqpUrl: broker.url,
      databaseUrl: db.url,
      schema: SCHEMA,
      queue: 'test.batch',
      bindings: ['dcim.device.*'],
      log: silent,
      batchSize: 50,
      batchHandler: async (events, tx) => {
        entered = true;
        if (!sizes.length) await g.opened; // the first batch holds the line while the rest arrive
        sizes.push(events.length);
        for (const e of events) await record('test.batch')(e, tx);
      },
    });
    running.push(c);
    c.start();
    await declared('test.batch');
    const first = sampleEvent('dcim.device', 0);
    await publish([first]);
    await until(() => entered);
    const rest = Array.from({ length: 120 }, (_, i) => sampleEvent('dcim.device', i + 1));
    await publish([...rest.slice(0, 60), rest[10], ...rest.slice(60)]); // one repeated inside the backlog
    g.open();
    await until(() => c.applied >= 121, 20_000);
    expect((await applied('test.batch')).map((r) => r.event_id)).toEqual([first.id, ...rest.map((e) => e.id)]);
    expect(c.skipped).toBe(1);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(50);
    expect(sizes.length).toBeLessThanOrEqual(10); // not one transaction per event
  });

  test('when one event of a batch fails, then the batch is applied one at a time: the others once, the failing one alone', async () => {
    const poison = sampleEvent('dcim.rack', 99);
    const c = consumer(
      'test.batch-poison',
      'dcim.rack.*',
      async (e, tx) => {
        await record('test.batch-poison')(e, tx);
        if (e.id === poison.id) throw new Error('poison');
      },
      { batchSize: 20, deliveryLimit: 2 },
    );
    await declared('test.batch-poison');
    const good = Array.from({ length: 30 }, (_, i) => sampleEvent('dcim.rack', i + 1));
    await publish([...good.slice(0, 15), poison, ...good.slice(15)]);
    await until(async () => (await applied('test.batch-poison')).length >= 30, 30_000);
    const ch = await conn.createChannel();
    await until(async () => (await ch.checkQueue('test.batch-poison.dead')).messageCount >= 1, 30_000);
    await ch.close();
    expect((await applied('test.batch-poison')).map((r) => r.event_id)).toEqual(good.map((e) => e.id));
    expect(c.applied).toBe(30);
  });
});

describe('packs (one message of consecutive events, as the relay packs them)', () => {
  /** Publishes events as one pack. */
  async function publishPack(events: ChangeEvent[]): Promise<void> {
    const ch = await conn.createConfirmChannel();
    await declareEventsExchange(ch);
    ch.publish(EVENTS_EXCHANGE, routingKey(events[0]), Buffer.from(JSON.stringify(events)), {
      persistent: true,
      messageId: `${events[0].id}..${events[events.length - 1].id}`,
      contentType: 'application/json',
      headers: { [PACK_HEADER]: events.length },
    });
    await ch.waitForConfirms();
    await ch.close();
  }

  test('when a pack arrives twice, then its events are applied once each, in order, in one transaction', async () => {
    const sizes: number[] = [];
    const c = new EventConsumer({
      amqpUrl: broker.url,
      databaseUrl: db.url,
      schema: SCHEMA,
      queue: 'test.pack',
      bindings: ['ipam.vlan.*'],
      log: silent,
      batchSize: 500,
      batchHandler: async (events, tx) => {
        sizes.push(events.length);
        for (const e of events) await record('test.pack')(e, tx);
      },
    });
    running.push(c);
    c.start();
    await declared('test.pack');
    const pack = Array.from({ length: 300 }, (_, i) => sampleEvent('ipam.vlan', i + 1));
    await publishPack(pack);
    await publishPack(pack);
    await until(() => c.applied + c.skipped >= 600);
    expect((await applied('test.pack')).map((r) => r.event_id)).toEqual(pack.map((e) => e.id));
    expect(sizes[0]).toBe(300);
  });

  test('when one event of a pack always fails, then the others are applied once and only the pack is dead-lettered, not what follows it', async () => {
    const pack = Array.from({ length: 10 }, (_, i) => sampleEvent('ipam.vrf', i + 1));
    const poison = pack[4];
    const c = consumer(
      'test.pack-poison',
      'ipam.vrf.*',
      async (e, tx) => {
        await record('test.pack-poison')(e, tx);
        if (e.id === poison.id) throw new Error('poison');
      },
      { batchSize: 100, deliveryLimit: 2 },
    );
    await declared('test.pack-poison');
    await publishPack(pack);
    const after = sampleEvent('ipam.vrf', 99);
    await publish([after]);
    const ch = await conn.createChannel();
    await until(async () => (await ch.checkQueue('test.pack-poison.dead')).messageCount >= 1, 30_000);
    await until(async () => (await applied('test.pack-poison')).length >= 10, 30_000);
    await ch.close();
    const good = pack.filter((e) => e !== poison);
    expect((await applied('test.pack-poison')).map((r) => r.event_id)).toEqual([...good, after].map((e) => e.id));
    expect(c.applied).toBe(10);
  });
});

test('when events are applied, repeated and failed, then the consumer\'s metrics count each outcome per queue and the lag per source', async () => {
  const metrics = new Metrics('cons');
  let failOnce = true;
  const c = consumer('test.metrics', 'metrics.#', async (e, tx) => {
    if (e.object_id === 3 && failOnce) {
      failOnce = false;
      throw new Error('once');
    }
    await record('test.metrics')(e, tx);
  }, { metrics, sourceOf: (e) => (e.model === 'metrics.a' ? 'alpha' : 'beta') });
  await declared('test.metrics');
  const a = [sampleEvent('metrics.a', 1), sampleEvent('metrics.a', 2)];
  const b = sampleEvent('metrics.b', 3);
  await publish([...a, b]);
  await publish([a[0]]); // a repeat
  await until(() => c.applied === 3 && c.skipped === 1);
  const page = parseExposition(await metrics.exposition());
  const at = (outcome: string) => page.value('inventory_consumer_events_total', { service: 'cons', queue: 'test.metrics', outcome });
  expect([at('applied'), at('duplicate'), at('failed')]).toEqual([3, 1, 1]);
  expect(page.value('inventory_consumer_lag_seconds_count', { queue: 'test.metrics', source: 'alpha' })).toBe(2);
  expect(page.value('inventory_consumer_lag_seconds_count', { queue: 'test.metrics', source: 'beta' })).toBe(1);
  expect(page.value('inventory_consumer_connected', { queue: 'test.metrics' })).toBe(1);
  await c.stop();
  expect(parseExposition(await metrics.exposition()).value('inventory_consumer_connected', { queue: 'test.metrics' })).toBe(0);
});
