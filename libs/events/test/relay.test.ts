import amqp, { type ChannelModel } from 'amqplib';
import pg from 'pg';
import { Metrics } from '@inventory/core';
import { createTestDatabase, parseExposition, startBroker } from '@inventory/testkit';
import { sql } from '@inventory/filtering';
import { CHANGELOG_QUEUE, OutboxRelay, PACK_HEADER, declareConsumerQueue, outboxRowJson, outboxStatements, storedEvent, writeOutbox, type ChangeEvent } from '@inventory/events';
import { sampleEvent, silent, until } from './fixtures';

/** The outbox and its relay against a real PostgreSQL and a real RabbitMQ. */
const SCHEMA = 'svc';
let db: { url: string; drop(): Promise<void> };
let broker: { url: string; stop(): Promise<void> };
let pool: pg.Pool;
let conn: ChannelModel;

beforeAll(async () => {
  [db, broker] = await Promise.all([createTestDatabase(), startBroker()]);
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  await pool.query(`CREATE SCHEMA ${SCHEMA}`);
  for (const s of outboxStatements(SCHEMA)) await pool.query(s);
  conn = await amqp.connect(broker.url);
}, 120_000);
afterAll(async () => {
  await conn?.close();
  await pool?.end();
  await db?.drop();
  await broker?.stop();
});


/** Writes events in one transaction, committed or rolled back. */
async function write(events: ChangeEvent[], commit = true): Promise<void> {
  const client = await pool.connect();
  const tx = { query: async (s: ReturnType<typeof sql>) => (await client.query(renderText(s), [...s.values])).rows };
  try {
    await client.query('BEGIN');
    await writeOutbox(tx, SCHEMA, events);
    await client.query(commit ? 'COMMIT' : 'ROLLBACK');
  } finally {
    client.release();
  }
}

function renderText(s: ReturnType<typeof sql>): string {
  return s.strings.reduce((acc, part, i) => acc + (i ? `$${i}` : '') + part, '');
}

/**
 * Collects the events delivered to a fresh queue bound to `pattern`, a
 * pack's one by one: `ids` as a consumer takes them (a lone event's message
 * id, a packed event's own id), `messages` as they came.
 */
async function listen(
  queue: string,
  pattern: string,
): Promise<{ got: ChangeEvent[]; ids: string[]; messages: { messageId: string; events: number; header: unknown; type: unknown }[] }> {
  const ch = await conn.createChannel();
  await declareConsumerQueue(ch, { name: queue, bindings: [pattern] });
  const out = { got: [] as ChangeEvent[], ids: [] as string[], messages: [] as { messageId: string; events: number; header: unknown; type: unknown }[] };
  await ch.consume(queue, (m) => {
    if (!m) return;
    const body = JSON.parse(m.content.toString());
    const events: ChangeEvent[] = Array.isArray(body) ? body : [body];
    out.got.push(...events);
    out.ids.push(...(Array.isArray(body) ? events.map((e) => e.id) : [String(m.properties.messageId)]));
    out.messages.push({ messageId: String(m.properties.messageId), events: events.length, header: m.properties.headers?.[PACK_HEADER], type: m.properties.type });
    ch.ack(m);
  });
  return out;
}


test('when a transaction commits events, then the relay publishes each once, in order, keyed <app>.<model>.<event>; a rolled-back one publishes nothing', async () => {
  const seen = await listen('test.tenancy', 'tenancy.tenant.*');
  const relay = new OutboxRelay({ databaseUrl: db.url, schema: SCHEMA, amqpUrl: broker.url, log: silent });
  relay.start();
  try {
    const withReference = { ...sampleEvent('tenancy.tenant', 2), reference: { nested: { id: 2, name: 'Ünïcode "two"' }, sort: ['Ünïcode "two"'], path: [1, 2] } };
    const committed = [sampleEvent('tenancy.tenant', 1), { ...sampleEvent('tenancy.tenant', 1, 'updated'), data: null }, withReference];
    await write(committed);
    await write([sampleEvent('tenancy.tenant', 3)], false);
    await write([sampleEvent('dcim.site', 9)]);
    await until(() => seen.got.length >= 3);
    await new Promise((r) => setTimeout(r, 300));
    expect(seen.got.map((e) => [e.object_id, e.event])).toEqual([[1, 'created'], [1, 'updated'], [2, 'created']]);
    expect(seen.ids).toEqual(committed.map((e) => e.id));
    // every field as written (the payloads are published as their stored text, the rest around them)
    expect(seen.got).toEqual(committed);
    const { rows } = await pool.query(`SELECT count(*)::int AS unsent FROM ${SCHEMA}._outbox WHERE sent_at IS NULL`);
    expect(rows[0].unsent).toBe(0);
  } finally {
    await relay.stop();
  }
});

test('when a write commits consecutive events of one routing key, then they go as one pack (in order, counted, id first..last); a lone event as itself', async () => {
  const seen = await listen('test.packs', 'circuits.provider.*');
  const relay = new OutboxRelay({ databaseUrl: db.url, schema: SCHEMA, amqpUrl: broker.url, log: silent, packMax: 4 });
  relay.start();
  try {
    const created = Array.from({ length: 6 }, (_, i) => sampleEvent('circuits.provider', i + 1));
    const updated = sampleEvent('circuits.provider', 1, 'updated');
    const written = [...created, updated];
    await write(written);
    await until(() => seen.got.length >= written.length);
    expect(seen.got).toEqual(written);
    expect(seen.ids).toEqual(written.map((e) => e.id));
    // at most packMax a pack; a run broken by another routing key; the lone update as the plain event
    expect(seen.messages).toEqual([
      { messageId: `${created[0].id}..${created[3].id}`, events: 4, header: 4, type: 'circuits.provider.created' },
      { messageId: `${created[4].id}..${created[5].id}`, events: 2, header: 2, type: 'circuits.provider.created' },
      { messageId: updated.id, events: 1, header: undefined, type: 'circuits.provider.updated' },
    ]);
  } finally {
    await relay.stop();
  }
});

test('when events are published before their durable consumer ever started, then they wait in its queue (the relay declared it)', async () => {
  const ch = await conn.createChannel();
  await ch.deleteQueue(CHANGELOG_QUEUE.name).catch(() => undefined);
  const relay = new OutboxRelay({ databaseUrl: db.url, schema: SCHEMA, amqpUrl: broker.url, log: silent, pollMs: 200 });
  relay.start();
  try {
    const events = [sampleEvent('auth.user', 1), sampleEvent('users.token', 1)];
    const before = relay.published;
    await write(events);
    await until(() => relay.published >= before + 2);
    // the change log starts only now, on the queue the relay declared with the same arguments
    const ch2 = await conn.createChannel();
    await declareConsumerQueue(ch2, CHANGELOG_QUEUE);
    const ids: string[] = [];
    await ch2.consume(CHANGELOG_QUEUE.name, (m) => {
      if (m) ids.push(String(m.properties.messageId));
    }, { noAck: true });
    await until(() => events.every((e) => ids.includes(e.id)));
    await ch2.close();
  } finally {
    await relay.stop();
    await ch.close();
  }
});

test('when two relays run for one service, then exactly one publishes and every event arrives once', async () => {
  const seen = await listen('test.two-relays', 'extras.tag.*');
  const relays = [0, 1].map(() => new OutboxRelay({ databaseUrl: db.url, schema: SCHEMA, amqpUrl: broker.url, log: silent, pollMs: 200 }));
  relays.forEach((r) => r.start());
  try {
    const events = Array.from({ length: 200 }, (_, i) => sampleEvent('extras.tag', i + 1));
    for (let i = 0; i < events.length; i += 20) await write(events.slice(i, i + 20));
    await until(() => seen.got.length >= 200);
    await new Promise((r) => setTimeout(r, 500));
    expect(seen.ids).toEqual(events.map((e) => e.id));
    expect(relays.filter((r) => r.published > 0)).toHaveLength(1);
  } finally {
    await Promise.all(relays.map((r) => r.stop()));
  }
});

/** A TCP proxy in front of the broker that the test can cut: an outage as the relay sees it. */
async function cuttableProxy(
  target: URL,
): Promise<{ url: string; down(): void; up(): void; hold(): void; release(): void; close(): Promise<void> }> {
  const net = await import('node:net');
  const sockets = new Set<import('node:net').Socket>();
  let isDown = false;
  /** While held, the broker's bytes (confirms, heartbeats) are kept back from the client; the client's still go through. */
  let held: Array<() => void> | null = null;
  const server = net.createServer((client) => {
    if (isDown) return void client.destroy();
    const upstream = net.connect(Number(target.port || 5672), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => (held ? held.push(() => client.write(chunk)) : client.write(chunk)));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as import('node:net').AddressInfo).port;
  const url = new URL(target.toString());
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.toString(),
    down() {
      isDown = true;
      held = null; // what was held back dies with the connections
      for (const s of sockets) s.destroy();
    },
    up() {
      isDown = false;
    },
    hold() {
      held ??= [];
    },
    release() {
      const queued = held ?? [];
      held = null;
      for (const write of queued) write();
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

test('when the broker takes publishes but never confirms them, then the relay gives up on the connection after its confirm timeout, and nothing is lost', async () => {
  const seen = await listen('test.unconfirmed', 'dcim.site.*');
  const proxy = await cuttableProxy(new URL(broker.url));
  const warnings: string[] = [];
  const log = { info: () => undefined, warn: (o: object) => void warnings.push(String((o as { err?: string }).err)) };
  const relay = new OutboxRelay({ databaseUrl: db.url, schema: SCHEMA, amqpUrl: proxy.url, log, pollMs: 200, confirmTimeoutMs: 300 });
  relay.start();
  try {
    await write([sampleEvent('dcim.site', 1)]);
    await until(() => seen.ids.length >= 1);
    proxy.hold(); // confirms (and everything else from the broker) are kept back
    const events = Array.from({ length: 5 }, (_, i) => sampleEvent('dcim.site', i + 2));
    await write(events);
    await until(() => warnings.some((w) => /no publisher confirms/.test(w)), 5_000);
    proxy.release();
    // marked sent only once confirms came back (on this connection or a later one); every event delivered, duplicates with the same id
    const unsent = async () => (await pool.query(`SELECT count(*)::int AS n FROM ${SCHEMA}._outbox WHERE sent_at IS NULL`)).rows[0].n;
    await until(async () => (await unsent()) === 0, 30_000);
    await until(() => events.every((e) => seen.ids.includes(e.id)));
  } finally {
    proxy.release();
    await relay.stop();
    await proxy.close();
  }
});

test('when the broker goes away during 1,000 writes, then every write commits, and after it is back every event arrives (duplicates only with the same id)', async () => {
  const seen = await listen('test.outage', 'ipam.prefix.*');
  const proxy = await cuttableProxy(new URL(broker.url));
  const relay = new OutboxRelay({ databaseUrl: db.url, schema: SCHEMA, amqpUrl: proxy.url, log: silent, pollMs: 200 });
  relay.start();
  try {
    const events = Array.from({ length: 1000 }, (_, i) => sampleEvent('ipam.prefix', i + 1));
    for (let i = 0; i < events.length; i += 50) {
      if (i === 300) proxy.down(); // mid-stream, possibly mid-batch
      if (i === 700) setTimeout(() => proxy.up(), 1500);
      await write(events.slice(i, i + 50));
    }
    await until(() => new Set(seen.ids).size >= 1000, 30_000);
    await new Promise((r) => setTimeout(r, 500));
    const wanted = new Set(events.map((e) => e.id));
    expect(new Set(seen.ids)).toEqual(wanted);
    // a duplicate (published, then the connection died before the row was marked) carries the same event id
    for (const [i, e] of seen.got.entries()) expect(e.id).toBe(seen.ids[i]);
    const { rows } = await pool.query(`SELECT count(*)::int AS unsent FROM ${SCHEMA}._outbox WHERE sent_at IS NULL`);
    expect(rows[0].unsent).toBe(0);
  } finally {
    await relay.stop();
    await proxy.close();
  }
}, 60_000);

test('when the relay is killed mid-batch (published, confirms not back, rows unmarked), then a replacement publishes the batch again with the same ids and nothing is lost', async () => {
  const seen = await listen('test.killed', 'dcim.device.*');
  const proxy = await cuttableProxy(new URL(broker.url));
  const first = new OutboxRelay({ databaseUrl: db.url, schema: SCHEMA, amqpUrl: proxy.url, log: silent, pollMs: 200, batchSize: 500 });
  let replacement: OutboxRelay | null = null;
  first.start();
  try {
    const warmUp = sampleEvent('dcim.device', 0);
    await write([warmUp]);
    await until(() => seen.ids.includes(warmUp.id)); // connected, publishing, confirmed
    await until(async () => (await unsent()) === 0);
    // the broker receives the next batch, but its confirms never reach the relay
    proxy.hold();
    const batch = Array.from({ length: 500 }, (_, i) => sampleEvent('dcim.device', i + 1));
    await write(batch); // one transaction: one batch
    await until(() => seen.ids.length >= 501);
    expect(await unsent()).toBe(500); // published, not marked: the relay waits on its confirms

    // the crash: its database session goes (and its advisory lock with it), its broker connection drops
    proxy.down();
    // its session is killed where it still waits for the confirms; where it already saw the broker go (a loaded
    // machine), it is between connections, each of them a moment long and ended by the refused broker: either way
    // it holds no lock now (polling for one of those moments made this test flaky under load)
    await pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`, [
      `outbox-relay:${SCHEMA}`,
    ]);
    await first.stop(); // dead: it never connects again
    const publishedByFirst = first.published;
    expect(publishedByFirst).toBe(1); // the warm-up only: the batch was never marked

    replacement = new OutboxRelay({ databaseUrl: db.url, schema: SCHEMA, amqpUrl: broker.url, log: silent, pollMs: 200 });
    replacement.start();
    const more = Array.from({ length: 500 }, (_, i) => sampleEvent('dcim.device', 501 + i));
    for (let i = 0; i < more.length; i += 50) await write(more.slice(i, i + 50));
    const written = [warmUp, ...batch, ...more];
    await until(() => new Set(seen.ids).size >= written.length, 30_000);
    await until(async () => (await unsent()) === 0);
    await new Promise((r) => setTimeout(r, 500));

    expect(new Set(seen.ids)).toEqual(new Set(written.map((e) => e.id)));
    // every delivery (a duplicate too) carries its event's own id
    for (const [i, e] of seen.got.entries()) expect(e.id).toBe(seen.ids[i]);
    const duplicates = seen.ids.length - new Set(seen.ids).size;
    // the killed batch went out twice, and only it
    expect(duplicates).toBe(500);
    const twice = new Set(seen.ids.filter((id, i) => seen.ids.indexOf(id) !== i));
    expect(twice).toEqual(new Set(batch.map((e) => e.id)));
    expect(replacement.published).toBe(1000);
    expect(first.published).toBe(publishedByFirst);
    const { rows: sessions } = await pool.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`,
      [`outbox-relay:${SCHEMA}`],
    );
    expect(sessions[0].n).toBe(1); // the replacement's: the dead relay did not come back
    console.log(
      `relay killed mid-batch: written ${written.length}, marked sent by the killed relay ${publishedByFirst} and by its replacement ${replacement.published}, ` +
        `delivered ${seen.ids.length}, consumed ${new Set(seen.ids).size} distinct, duplicates ${duplicates}`,
    );
  } finally {
    await first.stop();
    await replacement?.stop();
    await proxy.close();
  }
}, 60_000);

async function unsent(): Promise<number> {
  const { rows } = await pool.query(`SELECT count(*)::int AS unsent FROM ${SCHEMA}._outbox WHERE sent_at IS NULL`);
  return rows[0].unsent;
}

test('when the relay is stopped just after thousands of events were committed, then stop() publishes every one before it returns, and its metrics count them', async () => {
  const seen = await listen('test.flush', 'flush.item.*');
  const metrics = new Metrics('svc');
  const relay = new OutboxRelay({ databaseUrl: db.url, schema: SCHEMA, amqpUrl: broker.url, log: silent, batchSize: 100, metrics });
  relay.start();
  await until(() => relay.publishing);
  expect(parseExposition(await metrics.exposition()).value('inventory_outbox_relay_publishing')).toBe(1);
  const events = Array.from({ length: 3000 }, (_, i) => sampleEvent('flush.item', i + 1));
  await write(events);
  // a batch of 100 at a time: the stop comes while most of them wait
  const unsent = async () => (await pool.query(`SELECT count(*)::int AS n FROM ${SCHEMA}._outbox WHERE sent_at IS NULL`)).rows[0].n as number;
  const waiting = await unsent();
  await relay.stop();
  expect(waiting).toBeGreaterThan(0);
  expect(await unsent()).toBe(0);
  await until(() => seen.got.length >= 3000);
  expect(new Set(seen.ids)).toEqual(new Set(events.map((e) => e.id)));
  const page = parseExposition(await metrics.exposition());
  expect(page.value('inventory_outbox_published_total')).toBe(relay.published);
  expect(relay.published).toBeGreaterThanOrEqual(3000);
  expect(page.value('inventory_outbox_publish_lag_seconds_count')).toBe(relay.published);
  expect(page.value('inventory_outbox_publish_lag_seconds_bucket', { le: '+Inf' })).toBe(relay.published);
  expect(page.value('inventory_outbox_relay_publishing')).toBe(0);
});

describe('outboxRowJson (an outbox row published without parsing its documents)', () => {
  /** The row as the relay selects it: the JSON documents as their stored text. */
  const rowOf = (e: ChangeEvent) => {
    const s = storedEvent(e);
    return { ...s, timestamp: new Date(s.timestamp), data: JSON.stringify(s.data), snapshots: JSON.stringify(s.snapshots), reference: s.reference ? JSON.stringify(s.reference) : null };
  };

  it('is the event the outbox stored, spliced from its texts', () => {
    const e = { ...sampleEvent('dcim.interface', 7), data: { id: 7, name: 'eth "0"\\1' }, reference: { nested: { id: 7, display: 'eth0' }, sort: ['eth0'] } };
    const { event, json } = outboxRowJson(rowOf(e));
    expect(JSON.parse(json)).toEqual(e);
    expect(event).toEqual({ id: e.id, event: 'created', model: 'dcim.interface', timestamp: e.timestamp });
    expect(JSON.parse(outboxRowJson(rowOf({ ...e, event: 'deleted', data: null })).json)).toEqual({ ...e, event: 'deleted', data: null });
  });

  it("lifts an import's mark back out of the snapshots", () => {
    const e: ChangeEvent = { ...sampleEvent('tenancy.tenant', 3), import: { changelog: true, webhooks: false } };
    expect(JSON.parse(outboxRowJson(rowOf(e)).json)).toEqual(e);
  });
});
