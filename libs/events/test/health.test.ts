import * as net from 'node:net';
import { freePort } from '@inventory/infra';
import { startBroker } from '@inventory/testkit';
import { brokerReachable, resetBrokerProbeCache } from '@inventory/events';

/** The readiness probe's broker check, against a real RabbitMQ and against nothing. */
let broker: { url: string; stop(): Promise<void> };

beforeAll(async () => {
  broker = await startBroker();
}, 120_000);
afterAll(async () => {
  await broker?.stop();
});
beforeEach(() => resetBrokerProbeCache());

test('a running broker is reachable', async () => {
  expect(await brokerReachable(broker.url, 5000)).toBe(true);
});

test('a closed port is not, within the timeout', async () => {
  const port = await freePort();
  const t0 = Date.now();
  expect(await brokerReachable(`amqp://guest:guest@127.0.0.1:${port}`, 1000)).toBe(false);
  expect(Date.now() - t0).toBeLessThan(1500);
});

test('a port that accepts but never speaks AMQP answers false at the timeout', async () => {
  const sockets: net.Socket[] = [];
  const server = net.createServer((s) => sockets.push(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as net.AddressInfo;
    const t0 = Date.now();
    expect(await brokerReachable(`amqp://guest:guest@127.0.0.1:${port}`, 500)).toBe(false);
    expect(Date.now() - t0).toBeLessThan(1500);
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  }
});

test('wrong credentials are not reachable', async () => {
  const u = new URL(broker.url);
  u.password = 'not-the-password';
  expect(await brokerReachable(u.toString(), 5000)).toBe(false);
});

test('answers are cached: a probe storm shares one connection', async () => {
  const first = brokerReachable(broker.url, 5000);
  const storm = Array.from({ length: 20 }, () => brokerReachable(broker.url, 5000));
  for (const p of storm) expect(p).toBe(first);
  expect(await Promise.all(storm)).toEqual(Array(20).fill(true));
  // Still cached right after the answer
  expect(brokerReachable(broker.url, 5000)).toBe(first);
});
