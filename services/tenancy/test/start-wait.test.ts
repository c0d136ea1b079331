import pg from 'pg';
import { baseConfig, readConfig } from '@inventory/core';
import { freePort, startPostgres, startRabbitMQ, type RunningPostgres, type RunningRabbit } from '@inventory/infra';
import { Client, TEST_SECRET, eventually, serviceProcess, type ServiceProcess } from '@inventory/testkit';

/**
 * A service started before its database and its broker (a compose file or a
 * cluster coming up): tenancy as a process of its own, pointed at ports where
 * nothing listens yet; then a PostgreSQL server is started on the one (and the
 * service's role made), then a RabbitMQ on the other.
 */

const PASSWORD = 'W4it-for-me-s3cret';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let pgServer: RunningPostgres | null = null;
let rabbit: RunningRabbit | null = null;
let proc: ServiceProcess | null = null;

afterAll(async () => {
  await proc?.stop();
  await rabbit?.stop();
  await pgServer?.stop();
}, 60_000);

/** Starts a server of this suite's own, whatever DATABASE_URL / AMQP_URL say (they would make infra start nothing). */
async function own<T>(variable: 'DATABASE_URL' | 'AMQP_URL', start: () => Promise<T>): Promise<T> {
  const saved = process.env[variable];
  delete process.env[variable];
  try {
    return await start();
  } finally {
    if (saved !== undefined) process.env[variable] = saved;
  }
}

/** The service's log lines so far (pino JSON on stdout). */
const logLines = (): Record<string, any>[] =>
  proc!
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));

test('when PostgreSQL and RabbitMQ come up after the service, then it waits for them with growing, capped pauses, logs no password, and becomes ready', async () => {
  const [pgPort, amqpPort, port] = await Promise.all([freePort(), freePort(), freePort()]);
  const config = readConfig(baseConfig, {
    DATABASE_URL: `postgres://waiter:${PASSWORD}@127.0.0.1:${pgPort}/inventory`,
    AMQP_URL: `amqp://guest:guest@127.0.0.1:${amqpPort}`,
    INTERNAL_TOKEN_SECRET: TEST_SECRET,
    PORT: String(port),
  });
  proc = serviceProcess('tenancy', { LOG_LEVEL: 'info' }, { readyTimeoutMs: 240_000 })(config);
  const starting = proc.start(port);
  const waits = (dependency: string) => logLines().filter((l) => l.msg === `waiting for ${dependency}`);

  // nothing answers: it waits (alive, not listening), saying for what and where, without credentials
  await eventually(() => waits('PostgreSQL').length >= 3 && waits('RabbitMQ').length >= 3, 30_000, 'three waits for each');
  expect(proc.exited()).toBeNull();
  expect(await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status, () => 'refused')).toBe('refused');
  expect(waits('PostgreSQL')[0]).toMatchObject({ level: 40, dependency: 'PostgreSQL', target: `postgres://127.0.0.1:${pgPort}/inventory`, attempt: 1, code: 'ECONNREFUSED' });
  expect(waits('RabbitMQ')[0]).toMatchObject({ dependency: 'RabbitMQ', target: `amqp://127.0.0.1:${amqpPort}`, attempt: 1 });

  pgServer = await own('DATABASE_URL', () => startPostgres({ port: pgPort, prefer: ['local', 'embedded'] }));
  expect(pgServer.url).toContain(`:${pgPort}/`);
  // the role the service uses appears after the server (as an operator or init job makes it): refused until then, and still waited for
  await eventually(() => waits('PostgreSQL').some((l) => l.code === '28P01'), 30_000, 'a refused sign-in');
  const admin = new pg.Client({ connectionString: pgServer.url });
  await admin.connect();
  await admin.query(`CREATE ROLE waiter LOGIN SUPERUSER PASSWORD '${PASSWORD}'`);
  await admin.end();
  await eventually(() => logLines().some((l) => l.msg === 'PostgreSQL is reachable'), 30_000, 'PostgreSQL reachable');
  await sleep(1000);
  // still waiting for the broker: not serving yet
  expect(proc.exited()).toBeNull();
  expect(await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status, () => 'refused')).toBe('refused');

  rabbit = await own('AMQP_URL', () => startRabbitMQ({ port: amqpPort, prefer: ['local'] }));
  expect(rabbit.url).toBe(`amqp://guest:guest@127.0.0.1:${amqpPort}`);
  await starting;
  const created = await new Client(`http://127.0.0.1:${port}`, { audience: 'tenancy' }).post('/api/tenancy/tenants/', { name: 'Patient', slug: 'patient' });
  expect(created.status).toBe(201);

  // the pauses grow, are capped at 10 s (with jitter: half to all of the step), and no line carries a password;
  // they are the pauses the service logged it would take (its backoff formula), not times measured here
  const pauses = waits('RabbitMQ').map((l) => l.retry_in_ms as number);
  expect(pauses.length).toBeGreaterThanOrEqual(5);
  pauses.forEach((ms, i) => {
    const step = Math.min(250 * 2 ** i, 10_000);
    expect([i, ms]).toEqual([i, expect.any(Number)]);
    expect(ms).toBeGreaterThanOrEqual(step / 2 - 1);
    expect(ms).toBeLessThanOrEqual(step);
  });
  const output = proc.stdout() + proc.stderr();
  expect(output).not.toContain(PASSWORD);
  expect(output).not.toContain('guest:guest');
}, 300_000);
