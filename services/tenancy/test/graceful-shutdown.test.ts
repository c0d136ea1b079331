import http from 'node:http';
import amqp, { type ChannelModel } from 'amqplib';
import pg from 'pg';
import { IDENTITY_HEADER } from '@inventory/auth';
import { EVENTS_EXCHANGE, declareEventsExchange, eventsOf } from '@inventory/events';
import { bootStack, eventually, mintIdentity, serviceProcess, superuser, type Stack } from '@inventory/testkit';

/**
 * SIGTERM under load, black box: tenancy as a process of its own (as
 * deployed) against the run's PostgreSQL and a RabbitMQ virtual host of this
 * suite's, a steady stream of POSTs on keep-alive connections (as a load
 * balancer or a pynetbox session sends them), and a queue bound to the
 * events exchange before the first write.
 */

const WRITERS = 6;
const TENANTS = '/api/tenancy/tenants/';

interface Outcome {
  status?: number;
  id?: number;
  /** The connection error's code, when there was no answer. */
  error?: string;
  at: number;
}

const tenancy = serviceProcess('tenancy', { SHUTDOWN_DELAY: '1' });
let stack: Stack;
let conn: ChannelModel;
/** Created tenants' ids, as their events arrived. */
const published: number[] = [];

beforeAll(async () => {
  stack = await bootStack({ tenancy });
  conn = await amqp.connect(stack.config('tenancy').AMQP_URL as string);
  const ch = await conn.createChannel();
  await declareEventsExchange(ch);
  const { queue } = await ch.assertQueue('', { exclusive: true });
  await ch.bindQueue(queue, EVENTS_EXCHANGE, 'tenancy.tenant.created');
  await ch.consume(queue, (m) => m && published.push(...eventsOf(m.content)!.events.map((e) => e.object_id)), { noAck: true });
}, 120_000);

afterAll(async () => {
  await conn?.close();
  await stack?.stop();
});

function post(url: string, agent: http.Agent, identity: string, n: number): Promise<Outcome> {
  const body = JSON.stringify({ name: `Shutdown ${n}`, slug: `shutdown-${n}` });
  return new Promise((resolve) => {
    const req = http.request(
      `${url}${TENANTS}`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), [IDENTITY_HEADER]: identity } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode, id: res.statusCode === 201 ? JSON.parse(text).id : undefined, at: Date.now() });
        });
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: `response ${err.code ?? err.message}`, at: Date.now() }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message, at: Date.now() }));
    req.end(body);
  });
}

async function readiness(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/readyz`, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

test('when SIGTERM arrives during a steady stream of POSTs, then readiness turns 503, every answered request succeeded, the others were refused as new connections, and every created tenant\'s event reached RabbitMQ', async () => {
  const url = stack.urls.tenancy;
  const identity = mintIdentity(superuser, 'tenancy');
  const agent = new http.Agent({ keepAlive: true, maxSockets: WRITERS });
  const outcomes: Outcome[] = [];
  let n = 0;
  // each writer sends its next POST as soon as the last is answered, until its connection is refused
  const writers = Array.from({ length: WRITERS }, async () => {
    for (;;) {
      const o = await post(url, agent, identity, ++n);
      outcomes.push(o);
      if (o.error) return;
    }
  });
  try {
    while (outcomes.length < 150) await new Promise((r) => setTimeout(r, 10));
    const proc = tenancy.current();
    expect(proc?.pid).toBeDefined();
    const signalled = Date.now();
    process.kill(proc!.pid as number, 'SIGTERM');
    // the balancer's view: unready at once, while the writes still go through (SHUTDOWN_DELAY)
    const ready: (number | string)[] = [];
    for (let i = 0; i < 20 && ready[ready.length - 1] !== 503; i++) ready.push(await readiness(url));
    await Promise.all(writers);
    await eventually(() => proc!.exited() !== null, 30_000, 'the process to end');

    const answered = outcomes.filter((o) => o.status !== undefined);
    const refused = outcomes.filter((o) => o.error !== undefined);
    const report = JSON.stringify({ statuses: [...new Set(answered.map((o) => o.status))], errors: refused.map((o) => o.error), ready, stderr: proc!.stderr().slice(-2000) });
    expect([report, ready[ready.length - 1]]).toEqual([report, 503]);
    expect([report, answered.every((o) => o.status === 201)]).toEqual([report, true]);
    // each writer ended on a refused connection, none on a reset
    expect(refused.map((o) => o.error)).toEqual(Array(WRITERS).fill('ECONNREFUSED'));
    expect(answered.filter((o) => o.at > signalled).length).toBeGreaterThan(0);
    expect(proc!.exited()).toBe('exit 0');

    const db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
    try {
      const stored = (await db.query('SELECT id::int FROM tenancy.tenant ORDER BY id')).rows.map((r) => r.id);
      // every answered write is stored, and nothing is stored that was not answered
      expect(stored).toEqual(answered.map((o) => o.id).sort((a, b) => (a as number) - (b as number)));
      // the relay published what was committed before the process ended
      const [{ unsent }] = (await db.query('SELECT count(*)::int AS unsent FROM tenancy._outbox WHERE sent_at IS NULL')).rows;
      expect(unsent).toBe(0);
      await eventually(() => published.length >= stored.length, 15_000, () => `${stored.length} events (got ${published.length})`);
      expect([...new Set(published)].sort((a, b) => a - b)).toEqual(stored);
    } finally {
      await db.end();
    }
  } finally {
    agent.destroy();
  }
}, 120_000);
