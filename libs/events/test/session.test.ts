import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import amqp, { type ChannelModel } from 'amqplib';
import { BrokerSession, type BrokerLink } from '@inventory/events';
import { freePort, startRabbitMQ, type RabbitOptions, type RunningRabbit } from '@inventory/infra';
import { startBroker } from '@inventory/testkit';
import { until } from './fixtures';

/** The reconnecting broker session against a real RabbitMQ: the run's (a virtual host), and one of its own that it restarts. */
let broker: { url: string; stop(): Promise<void> };
let conn: ChannelModel;
const sessions: BrokerSession[] = [];

beforeAll(async () => {
  broker = await startBroker();
  conn = await amqp.connect(broker.url);
}, 120_000);
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.stop()));
});
afterAll(async () => {
  await conn?.close();
  await broker?.stop();
});

/** A session whose serve declares `queue`, counts its runs, and holds the link until it ends. */
function holding(url: string, queue: string, extra: Partial<ConstructorParameters<typeof BrokerSession>[0]> = {}) {
  const runs = { started: 0, ended: 0, warnings: [] as string[] };
  const session = new BrokerSession({
    amqpUrl: url,
    log: { info: () => undefined, warn: (o: object, m?: string) => void runs.warnings.push(`${m}: ${(o as { err?: string }).err}`) },
    name: 'test session',
    backoff: { first: 50, max: 400 },
    async serve(link) {
      const ch = await link.connect();
      await ch.assertQueue(queue, { durable: false });
      runs.started++;
      link.ready();
      try {
        await link.ended;
      } finally {
        runs.ended++;
      }
    },
    ...extra,
  });
  sessions.push(session);
  return { session, runs };
}

/** Messages waiting in `queue` (its consumers' unacked ones not counted). */
async function waiting(queue: string): Promise<number> {
  const ch = await conn.createChannel();
  try {
    return (await ch.checkQueue(queue)).messageCount;
  } finally {
    await ch.close();
  }
}

test('when a link is failed (a lost database, say), then the session closes its connection, pauses and serves a new link; stop() ends it and resolves ready', async () => {
  let current: BrokerLink | null = null;
  let closed = 0;
  const { session, runs } = holding(broker.url, 'test.session.fail', {
    async serve(link) {
      current = link;
      (await link.connect()).on('close', () => closed++);
      runs.started++;
      link.ready();
      await link.ended.finally(() => runs.ended++);
    },
  });
  session.start();
  await session.ready;
  expect(runs.started).toBe(1);
  current!.fail(new Error('database connection closed'));
  await until(() => runs.started === 2);
  expect(runs.ended).toBe(1);
  expect(closed).toBe(1);
  expect(runs.warnings).toEqual(['test session: reconnecting after an error: database connection closed']);
  expect(current!.live).toBe(true);
  await session.stop();
  expect(runs.ended).toBe(2);
  expect(current!.live).toBe(false);
  expect(current!.error).toBeNull(); // ended by stop(), not failed
  expect(runs.started).toBe(2);
});

test('when serve throws, then the pause grows with each failure up to its cap, and every failure is reported to onError', async () => {
  const at: number[] = [];
  const errors: string[] = [];
  const { session } = holding(broker.url, 'unused', {
    backoff: { first: 50, max: 200 },
    onError: (err) => void errors.push(err.message),
    async serve() {
      at.push(Date.now());
      throw new Error(`failure ${at.length}`);
    },
  });
  session.start();
  await until(() => at.length >= 6);
  await session.stop();
  const pauses = at.slice(1).map((t, i) => t - at[i]);
  // 50, 100, 200, 200, 200 (timers never fire early; a loaded machine may make them late)
  [50, 100, 200, 200, 200].forEach((least, i) => expect(pauses[i]).toBeGreaterThanOrEqual(least - 2));
  expect(errors.slice(0, 6)).toEqual(['failure 1', 'failure 2', 'failure 3', 'failure 4', 'failure 5', 'failure 6']);
});

test('when the broker is unreachable, then stop() during a long pause returns at once', async () => {
  const port = await freePort(); // nothing listens there
  const errors: Error[] = [];
  const { session, runs } = holding(`amqp://guest:guest@127.0.0.1:${port}`, 'unused', { backoff: { first: 10_000, max: 10_000 }, onError: (err) => void errors.push(err) });
  session.start();
  await until(() => errors.length === 1);
  await new Promise((r) => setTimeout(r, 100)); // well into the 10 s pause
  const t0 = Date.now();
  await session.stop();
  expect(Date.now() - t0).toBeLessThan(1000);
  expect(errors).toHaveLength(1);
  expect(runs.started).toBe(0);
  await session.ready; // resolved by stop(), although never connected
});

test('when the session stops, then serve finishes its work before the connection closes, and unacked messages go back to the queue', async () => {
  const QUEUE = 'test.session.unacked';
  const ch = await conn.createChannel();
  await ch.assertQueue(QUEUE, { durable: false });
  let heldAtTheEnd: number | null = null;
  const { session } = holding(broker.url, QUEUE, {
    async serve(link) {
      const c = await link.connect();
      await c.consume(QUEUE, () => undefined, { noAck: false }); // taken, never acked
      link.ready();
      await link.ended;
      await new Promise((r) => setTimeout(r, 200)); // the batch being applied
      heldAtTheEnd = await waiting(QUEUE); // the connection is still open: none back yet
    },
  });
  session.start();
  await session.ready;
  for (let i = 0; i < 3; i++) ch.sendToQueue(QUEUE, Buffer.from(`m${i}`));
  await until(async () => (await waiting(QUEUE)) === 0); // all delivered to the session
  await session.stop();
  expect(heldAtTheEnd).toBe(0);
  await until(async () => (await waiting(QUEUE)) === 3);
  await ch.close();
});

test('when serve returns on its own, then the session ends (no reconnect)', async () => {
  let runs = 0;
  const { session } = holding(broker.url, 'unused', {
    async serve(link) {
      await link.connect();
      runs++;
    },
  });
  session.start();
  await session.ready; // the session ended: ready resolves all the same
  await new Promise((r) => setTimeout(r, 300));
  expect(runs).toBe(1);
});

describe('a broker restart', () => {
  let tmp: string;
  let opts: RabbitOptions;
  let own: RunningRabbit | null = null;
  const dataDirs = new Set<string>();

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inventory-session-restart-'));
    opts = { persistent: true, dataDir: path.join(tmp, 'rabbitmq'), port: await freePort(), prefer: ['local'], log: () => undefined };
    own = await startRabbitMQ(opts);
    if (own.dataDir) dataDirs.add(own.dataDir);
    // a broker of this suite's own, which it may stop (never the run's, nor an external one)
    expect(own.kind).toBe('local');
  }, 120_000);
  afterAll(async () => {
    await own?.stop();
    for (const dir of [...dataDirs, tmp]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  test('when RabbitMQ is stopped and started again, then the link fails, the session retries while it is down, and serve runs again on a new connection that works', async () => {
    const QUEUE = 'test.session.restart';
    const got: string[] = [];
    const { session, runs } = holding(own!.url, QUEUE, {
      async serve(link) {
        const ch = await link.connect();
        await ch.assertQueue(QUEUE, { durable: false });
        await ch.consume(QUEUE, (m) => m && got.push(m.content.toString()), { noAck: true });
        runs.started++;
        link.ready();
        await link.ended.finally(() => runs.ended++);
      },
    });
    session.start();
    await session.ready;
    expect(runs.started).toBe(1);

    await own!.stop();
    await until(() => runs.ended === 1);
    await new Promise((r) => setTimeout(r, 1_000)); // down for a while: several attempts fail
    const whileDown = runs.warnings.length;
    expect(whileDown).toBeGreaterThanOrEqual(2);
    expect(runs.started).toBe(1);

    own = await startRabbitMQ(opts);
    if (own.dataDir) dataDirs.add(own.dataDir);
    await until(() => runs.started === 2, 30_000);
    const c = await amqp.connect(own.url);
    try {
      const ch = await c.createChannel();
      ch.sendToQueue(QUEUE, Buffer.from('after the restart'));
      await until(() => got.includes('after the restart'));
    } finally {
      await c.close();
    }
    expect(runs.warnings[0]).toMatch(/^test session: reconnecting after an error: /);
    await session.stop();
    expect(runs.ended).toBe(2);
  }, 120_000);
});
