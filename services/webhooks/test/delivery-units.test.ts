import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readConfig } from '@inventory/core';
import type { ChangeEvent } from '@inventory/events';
import { Batcher } from '../src/delivery/batcher';
import { matchEvents, type MatchedHook } from '../src/delivery/matcher';
import { request } from '../src/delivery/request';
import { retryAfter } from '../src/delivery/sender';
import { WebhookSlots } from '../src/delivery/slots';
import { MAX_PER_MESSAGE, deliveryMessages, parseDeliveryMessage, retryDelay } from '../src/delivery/topology';
import { dispatchSettings, retrySchedule, webhooksConfig } from '../src/config';

/** The dispatcher's pure parts: batching, fairness, matching, retry timing, settings. */

const tick = () => new Promise((r) => setImmediate(r));

describe('Batcher', () => {
  test('when calls are made in one turn, then they run as one batch and each gets its own answer', async () => {
    const batches: number[][] = [];
    const b = new Batcher(async (xs: number[]) => (batches.push(xs), xs.map((x) => x * 10)));
    const answers = await Promise.all([b.call(1), b.call(2), b.call(3)]);
    expect(answers).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
    expect(await b.call(4)).toBe(40);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  test('when a batch reaches its limit, then it runs at once and the rest go in the next', async () => {
    const batches: number[][] = [];
    const b = new Batcher(async (xs: number[]) => (batches.push(xs), xs), 2);
    await Promise.all([1, 2, 3, 4, 5].map((x) => b.call(x)));
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  test('when calls come while a batch runs, then they wait for it and go together in the next', async () => {
    const batches: number[][] = [];
    let finish: () => void = () => undefined;
    const b = new Batcher(async (xs: number[]) => {
      batches.push(xs);
      if (batches.length === 1) await new Promise<void>((r) => (finish = r));
      return xs;
    });
    const first = b.call(1);
    await tick();
    const later = [b.call(2), b.call(3)];
    await tick();
    await tick();
    expect(batches).toEqual([[1]]);
    finish();
    expect(await Promise.all([first, ...later])).toEqual([1, 2, 3]);
    expect(batches).toEqual([[1], [2, 3]]);
  });

  test('when two batches may run at once, then calls made while one runs go at once, and those made while two run wait', async () => {
    const batches: number[][] = [];
    const held: (() => void)[] = [];
    const b = new Batcher(
      async (xs: number[]) => {
        batches.push(xs);
        if (batches.length <= 2) await new Promise<void>((r) => held.push(r));
        return xs;
      },
      500,
      2,
    );
    const calls = [b.call(1)];
    await tick();
    calls.push(b.call(2));
    await tick();
    calls.push(b.call(3), b.call(4));
    await tick();
    await tick();
    expect(batches).toEqual([[1], [2]]);
    held.forEach((release) => release());
    expect(await Promise.all(calls)).toEqual([1, 2, 3, 4]);
    expect(batches).toEqual([[1], [2], [3, 4]]);
  });

  test('when the batch fails, then every call of it fails with that error', async () => {
    const b = new Batcher<number, number>(async () => {
      throw new Error('down');
    });
    const results = await Promise.allSettled([b.call(1), b.call(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});

describe('WebhookSlots', () => {
  test('when a webhook has its share in flight, then the next waits for a release, and other webhooks do not wait', async () => {
    const slots = new WebhookSlots(2, 100, 10_000);
    const a = await slots.take(1);
    const b = await slots.take(1);
    expect(a && b).toBeTruthy();
    let third: unknown = 'waiting';
    void slots.take(1).then((r) => (third = r));
    expect(await slots.take(2)).toBeInstanceOf(Function);
    await tick();
    expect(third).toBe('waiting');
    a?.();
    a?.(); // a second release of the same attempt changes nothing
    await tick();
    expect(third).toBeInstanceOf(Function);
    slots.close();
  });

  test('when an attempt of a webhook runs past slowMs, then what waits for it, and what comes next, is handed back to be parked', async () => {
    const slots = new WebhookSlots(1, 100, 40);
    const running = await slots.take(7);
    const waiting = slots.take(7);
    const started = Date.now();
    expect(await waiting).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
    expect(await slots.take(7)).toBeNull(); // at once now: its receiver is slow
    running?.();
    expect(await slots.take(7)).toBeInstanceOf(Function); // the slot is free again
    slots.close();
  });

  test('when a webhook is busy but quick, then what waits is not parked', async () => {
    const slots = new WebhookSlots(1, 100, 40);
    const first = await slots.take(3);
    const waiting = slots.take(3);
    await new Promise((r) => setTimeout(r, 20));
    first?.();
    expect(await waiting).toBeInstanceOf(Function);
    slots.close();
  });

  test('when every sender is busy, then waiting attempts start a webhook at a time in turn, not in arrival order', async () => {
    const slots = new WebhookSlots(10, 2, 60_000);
    const a1 = await slots.take(1);
    const a2 = await slots.take(1);
    const order: string[] = [];
    const wait = (webhook: number, name: string) => void slots.take(webhook).then((r) => (order.push(name), r));
    wait(1, 'a3');
    wait(1, 'a4');
    wait(2, 'b1');
    await tick();
    expect(order).toEqual([]); // two in flight: the total
    a1?.();
    await tick();
    a2?.();
    await tick();
    expect(order).toEqual(['a3', 'b1']);
    slots.close();
  });

  test('when the slots close, then whatever waits is handed back', async () => {
    const slots = new WebhookSlots(1, 100, 60_000);
    await slots.take(1);
    const waiting = slots.take(1);
    slots.close();
    expect(await waiting).toBeNull();
  });
});

describe('matchEvents', () => {
  const event = (over: Partial<ChangeEvent> = {}): ChangeEvent =>
    ({
      id: '00000000-0000-4000-8000-000000000001',
      event: 'created',
      model: 'tenancy.tenant',
      object_id: 5,
      version: 1,
      timestamp: '2024-05-06T12:43:46.123Z',
      username: 'admin',
      request_id: 'r1',
      data: { id: 5, name: 'Acme', status: { value: 'active' } },
      snapshots: { prechange: null, postchange: { name: 'Acme' } },
      ...over,
    }) as ChangeEvent;
  const hook = (over: Partial<MatchedHook> = {}): MatchedHook => ({
    id: 1,
    content_types: ['tenancy.tenant'],
    type_create: true,
    type_update: false,
    type_delete: false,
    conditions: null,
    ...over,
  });

  test('when a webhook watches the type and the kind, then the event makes one delivery with the webhook context', () => {
    const [d, ...rest] = matchEvents([hook()], [event()]);
    expect(rest).toEqual([]);
    expect(d.webhookId).toBe(1);
    expect(Object.keys(JSON.parse(d.context))).toEqual(['event', 'timestamp', 'model', 'username', 'request_id', 'data', 'snapshots']);
    expect(JSON.parse(d.context)).toMatchObject({ event: 'created', model: 'tenant', timestamp: '2024-05-06T12:43:46.123000+00:00' });
  });

  test('when the kind, the type or the conditions do not match, then no delivery is made', () => {
    expect(matchEvents([hook()], [event({ event: 'updated' })])).toEqual([]);
    expect(matchEvents([hook()], [event({ model: 'dcim.site' })])).toEqual([]);
    expect(matchEvents([hook({ conditions: { attr: 'status.value', value: 'planned' } })], [event()])).toEqual([]);
    expect(matchEvents([hook()], [event({ event: 'job_started' as ChangeEvent['event'] })])).toEqual([]);
  });

  test('when several webhooks and events match, then each pair makes a delivery, in event order', () => {
    const hooks = [hook(), hook({ id: 2, type_update: true, conditions: { and: [{ attr: 'status.value', value: 'active' }] } })];
    const events = [event(), event({ id: '00000000-0000-4000-8000-000000000002', event: 'updated' })];
    expect(matchEvents(hooks, events).map((d) => [d.webhookId, d.event.id.slice(-1)])).toEqual([
      [1, '1'],
      [2, '1'],
      [2, '2'],
    ]);
  });

  test('when a stored condition no longer evaluates, then it matches nothing (no error)', () => {
    expect(matchEvents([hook({ conditions: { attr: 'name', value: 'x', op: 'nonsense' } })], [event()])).toEqual([]);
  });
});

describe('retry timing', () => {
  const schedule = [1000, 5000, 60_000];

  test('when an attempt fails, then the next waits the step of the schedule for that attempt', () => {
    expect(retryDelay(1, schedule)).toBe(1000);
    expect(retryDelay(2, schedule)).toBe(5000);
    expect(retryDelay(9, schedule)).toBe(60_000);
  });

  test('when the receiver asks for a longer Retry-After, then the shortest step at least that long is taken, up to the longest', () => {
    expect(retryDelay(1, schedule, 3000)).toBe(5000);
    expect(retryDelay(1, schedule, 3_600_000)).toBe(60_000);
    expect(retryDelay(2, schedule, 100)).toBe(5000);
  });

  test('when Retry-After is seconds or an HTTP date, then it is read as milliseconds from now; anything else is ignored', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfter('120', now)).toBe(120_000);
    expect(retryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(retryAfter('Wed, 31 Dec 2025 00:00:30 GMT', now)).toBeUndefined();
    expect(retryAfter('soon', now)).toBeUndefined();
    expect(retryAfter(undefined, now)).toBeUndefined();
  });

  test('when a delivery message is read, then only a well-formed one is taken (one delivery as `delivery` too)', () => {
    expect(parseDeliveryMessage(Buffer.from('{"deliveries":[3,4],"attempt":2,"webhook":9}'))).toEqual({ deliveries: [3, 4], attempt: 2, webhook: 9 });
    expect(parseDeliveryMessage(Buffer.from('{"delivery":3,"attempt":1}'))).toEqual({ deliveries: [3], attempt: 1 });
    expect(parseDeliveryMessage(Buffer.from('{"deliveries":[3],"attempt":0}'))).toBeNull();
    expect(parseDeliveryMessage(Buffer.from('{"deliveries":["3"],"attempt":1}'))).toBeNull();
    expect(parseDeliveryMessage(Buffer.from('{"deliveries":[],"attempt":1}'))).toBeNull();
    expect(parseDeliveryMessage(Buffer.from('nope'))).toBeNull();
  });

  test('when attempts are queued, then a message carries one webhook\'s deliveries for one attempt, at most MAX_PER_MESSAGE', () => {
    const due = [
      ...Array.from({ length: MAX_PER_MESSAGE + 2 }, (_, i) => ({ delivery: i + 1, attempt: 1, webhook: 7 })),
      { delivery: 100, attempt: 1, webhook: 8 },
      { delivery: 101, attempt: 3, webhook: 7 },
    ];
    const messages = deliveryMessages(due);
    expect(messages.map((m) => [m.webhook, m.attempt, m.deliveries.length])).toEqual([
      [7, 1, MAX_PER_MESSAGE],
      [7, 1, 2],
      [8, 1, 1],
      [7, 3, 1],
    ]);
    expect(messages.flatMap((m) => m.deliveries).sort((a, b) => a - b)).toEqual(due.map((d) => d.delivery).sort((a, b) => a - b));
  });
});

describe('settings', () => {
  const base = { DATABASE_URL: 'postgres://u@localhost/db', INTERNAL_TOKEN_SECRET: 'x'.repeat(32) };

  test('when nothing is set, then the defaults apply: six attempts over about three hours, 30 days of log', () => {
    const c = readConfig(webhooksConfig, base);
    expect(retrySchedule(c.WEBHOOK_RETRY_SCHEDULE)).toEqual([10_000, 60_000, 300_000, 1_800_000, 7_200_000]);
    expect(c).toMatchObject({ WEBHOOK_DELIVERY_RETENTION: 30, WEBHOOK_CONCURRENCY: 64, WEBHOOK_TIMEOUT: 10 });
  });

  test('when a setting is wrong, then start-up stops naming it', () => {
    expect(() => readConfig(webhooksConfig, { ...base, WEBHOOK_RETRY_SCHEDULE: '10,soon' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => readConfig(webhooksConfig, { ...base, WEBHOOK_DELIVERY_RETENTION: '-1' })).toThrow(/WEBHOOK_DELIVERY_RETENTION/);
    expect(() => readConfig(webhooksConfig, { ...base, WEBHOOK_CONCURRENCY: '0' })).toThrow(/WEBHOOK_CONCURRENCY/);
  });

  test('when a config lacks the settings (a test stack), then the defaults fill them and the given ones stay', () => {
    expect(dispatchSettings({ ...readConfig(webhooksConfig, base), WEBHOOK_RETRY_SCHEDULE: '0.2,0.4' }).WEBHOOK_RETRY_SCHEDULE).toBe('0.2,0.4');
    expect(retrySchedule('0.2, 0.4')).toEqual([200, 400]);
  });
});

describe('request (the senders\' HTTP client)', () => {
  const sockets = new Set<string>();
  let held = 0;
  const server = http.createServer((req, res) => {
    sockets.add(`${req.socket.remotePort}`);
    if (req.url === '/hold') return void held++; // never answered
    req.resume();
    req.on('end', () => res.end(req.url === '/long' ? 'é'.repeat(2000) : `${req.method} ${req.headers['content-length']}`));
  });
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const options = { method: 'POST', headers: { 'Content-Type': 'application/json' }, timeoutMs: 5000, rejectUnauthorized: true, excerpt: 500 };

  test('when answers follow one another, then they come over one kept-alive connection, the body sent with its length and the answer cut to its excerpt', async () => {
    sockets.clear();
    expect(await request(`${url}/short`, { ...options, body: '{"é": 1}' })).toMatchObject({ statusCode: 200, body: 'POST 9' }); // bytes, not characters
    const long = await request(`${url}/long`, { ...options, body: '{}' });
    expect(long.body).toBe('é'.repeat(500));
    expect(sockets.size).toBe(1);
  });

  test('when the receiver does not answer in time, then the attempt fails with the deadline, and a bad URL fails before sending', async () => {
    await expect(request(`${url}/hold`, { ...options, timeoutMs: 100 })).rejects.toThrow("Timeout awaiting 'request' for 100ms");
    expect(held).toBe(1);
    await expect(request('ftp://example.invalid/', options)).rejects.toThrow('Unsupported protocol');
    await expect(request('not a url', options)).rejects.toThrow('Invalid URL');
  });
});
