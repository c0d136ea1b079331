import amqp from 'amqplib';
import { EVENTS_EXCHANGE, declareEventsExchange, routingKey, subscribeChanges, type ChangeEvent, type ChangeSubscription } from '@inventory/events';
import { startBroker } from '@inventory/testkit';
import { sampleEvent, silent, until } from './fixtures';

let broker: { url: string; stop(): Promise<void> };
beforeAll(async () => {
  broker = await startBroker();
}, 120_000);
afterAll(async () => {
  await broker?.stop();
});

/** One event, or several as one pack (as the relay packs consecutive events of one routing key). */
async function publish(event: ChangeEvent, ...packed: ChangeEvent[]): Promise<void> {
  const conn = await amqp.connect(broker.url);
  const ch = await conn.createConfirmChannel();
  await declareEventsExchange(ch);
  const body = packed.length ? [event, ...packed] : event;
  ch.publish(EVENTS_EXCHANGE, routingKey(event), Buffer.from(JSON.stringify(body)), { messageId: event.id });
  await ch.waitForConfirms();
  await conn.close();
}

test('when two processes subscribe to the same patterns, then each gets every matching event (a pack\'s one by one), and none other', async () => {
  const got: ChangeEvent[][] = [[], []];
  const subs: ChangeSubscription[] = got.map((list) =>
    subscribeChanges({ amqpUrl: broker.url, bindings: ['extras.tag.#'], onEvent: (e) => void list.push(e), log: silent }),
  );
  try {
    await Promise.all(subs.map((s) => s.ready));
    await publish(sampleEvent('extras.webhook', 1));
    const tag = sampleEvent('extras.tag', 7, 'updated');
    await publish(tag);
    // a pack: each of its events, in order
    const pack = [sampleEvent('extras.tag', 8), sampleEvent('extras.tag', 9)];
    await publish(pack[0], pack[1]);
    await until(() => got.every((l) => l.length >= 3));
    await new Promise((r) => setTimeout(r, 200));
    for (const list of got) expect(list.map((e) => e.id)).toEqual([tag.id, ...pack.map((e) => e.id)]);
  } finally {
    await Promise.all(subs.map((s) => s.stop()));
  }
});

test('when a subscription stops, then its queue goes and it gets nothing more', async () => {
  const got: ChangeEvent[] = [];
  let connects = 0;
  const sub = subscribeChanges({ amqpUrl: broker.url, bindings: ['#'], onEvent: (e) => void got.push(e), onConnect: () => connects++, log: silent });
  await sub.ready;
  expect(connects).toBe(1);
  await sub.stop();
  await publish(sampleEvent('users.user', 3));
  await new Promise((r) => setTimeout(r, 200));
  expect(got).toEqual([]);
});
