import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { bootStack, eventually, startReceiver, type Client, type Stack, type TestReceiver } from '@inventory/testkit';
import { createService as extras } from '@inventory/extras';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as webhooks } from '@inventory/webhooks';

/**
 * The dispatcher end to end: tenancy's change events, through RabbitMQ, to a
 * real HTTP receiver; retries on a short schedule (0.2 s, 0.4 s) and the
 * dead-letter queue worked into the delivery log.
 */
interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let stack: Stack;
let ten: Client;
let hooks: Client;
let receiver: Server;
let base: string;
const received: Received[] = [];
/** Status codes the receiver answers, one per request, then 200. */
const answers: number[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      res.statusCode = answers.shift() ?? 200;
      res.end(res.statusCode === 200 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  // few senders (8, so 4 per webhook), to show that a slow receiver cannot take them all
  stack = await bootStack({ extras, tenancy, webhooks: (config) => webhooks({ ...config, WEBHOOK_RETRY_SCHEDULE: '0.2,0.4', WEBHOOK_CONCURRENCY: 8, WEBHOOK_TIMEOUT: 120 }) }, {}, { template: true });
  ten = stack.client('tenancy');
  hooks = stack.client('webhooks');
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await new Promise((r) => receiver?.close(r));
});

const to = (path: string) => received.filter((r) => r.path === path);

test('when a tenant is created, then the webhook sends the default body, signed, with its delivery id, and the log says succeeded', async () => {
  const hook = await hooks.post('/api/extras/webhooks/', {
    name: 'Tenants',
    content_types: ['tenancy.tenant'],
    type_create: true,
    payload_url: `${base}/created/{{ data.slug }}`,
    secret: 's3cret',
    additional_headers: 'X-Team: {{ data.name | upper }}',
  });
  expect(hook.status).toBe(201);
  const t = await ten.post('/api/tenancy/tenants/', { name: 'Acme', slug: 'acme' });
  await eventually(() => to('/created/acme').length === 1, 15_000, 'the delivery');
  const [r] = to('/created/acme');
  expect(r.method).toBe('POST');
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.headers['x-team']).toBe('ACME');
  expect(r.headers['x-hook-signature']).toBe(createHmac('sha512', 's3cret').update(r.body).digest('hex'));
  // Standard Webhooks, checked by its own library (the secret's bytes are the key: it takes them base64-encoded)
  expect(r.headers['webhook-id']).toBe(r.headers['x-delivery-id']);
  const standard = new StandardWebhook(Buffer.from('s3cret').toString('base64'));
  expect(() => standard.verify(r.body, { 'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']) })).not.toThrow();
  expect(() => new StandardWebhook(Buffer.from('not the secret').toString('base64')).verify(r.body, { 'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']) })).toThrow();
  const body = JSON.parse(r.body);
  expect(Object.keys(body)).toEqual(['event', 'timestamp', 'model', 'username', 'request_id', 'data', 'snapshots']);
  expect(body).toMatchObject({ event: 'created', model: 'tenant', request_id: t.headers.get('x-request-id'), data: { id: t.body.id, name: 'Acme' } });
  // the outcome is recorded once the receiver's answer is back: the receiver may see the request first
  const logged = async () => (await hooks.get(`/api/extras/webhook-deliveries/?webhook_id=${hook.body.id}`)).body;
  await eventually(async () => (await logged()).results[0]?.status?.value !== 'queued', 15_000, 'the delivery recorded');
  const log = { body: await logged() };
  expect(log.body.results).toHaveLength(1);
  expect(log.body.results[0]).toMatchObject({ status: { value: 'succeeded' }, attempt_count: 1, object_type: 'tenancy.tenant', object_id: t.body.id });
  expect(r.headers['x-delivery-id']).toBe(`${log.body.results[0].event_id}:${log.body.results[0].id}`);
});

test('when the receiver answers 500 twice, then the delivery is retried on the schedule and succeeds once', async () => {
  const hook = await hooks.post('/api/extras/webhooks/', { name: 'Flaky', content_types: ['tenancy.tenantgroup'], type_create: true, payload_url: `${base}/flaky` });
  expect(hook.status).toBe(201);
  answers.push(500, 503);
  await ten.post('/api/tenancy/tenant-groups/', { name: 'Retried', slug: 'retried' });
  await eventually(async () => (await hooks.get(`/api/extras/webhook-deliveries/?webhook_id=${hook.body.id}&status=succeeded`)).body.count === 1, 15_000, 'success after retries');
  expect(to('/flaky')).toHaveLength(3);
  const [d] = (await hooks.get(`/api/extras/webhook-deliveries/?webhook_id=${hook.body.id}`)).body.results;
  expect(d.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 503, 200]);
});

test('when the receiver never answers 2XX, then after the last attempt the delivery is failed in the log, and retry (one, or all failed) sends it again', async () => {
  const hook = await hooks.post('/api/extras/webhooks/', { name: 'Broken', content_types: ['tenancy.contactrole'], type_create: true, payload_url: `${base}/broken` });
  answers.push(500, 500, 500);
  await ten.post('/api/tenancy/contact-roles/', { name: 'Doomed', slug: 'doomed' });
  await eventually(async () => (await hooks.get(`/api/extras/webhook-deliveries/?webhook_id=${hook.body.id}&status=failed`)).body.count === 1, 15_000, 'failed');
  expect(to('/broken')).toHaveLength(3);
  const [failed] = (await hooks.get(`/api/extras/webhook-deliveries/?webhook_id=${hook.body.id}`)).body.results;

  // the receiver is fixed: a retry of that one delivery sends it once more and it succeeds
  const one = await hooks.post(`/api/extras/webhook-deliveries/${failed.id}/retry/`, {});
  expect(one.status).toBe(200);
  await eventually(async () => (await hooks.get(`/api/extras/webhook-deliveries/${failed.id}/`)).body.status.value === 'succeeded', 15_000, 'retried');
  expect(to('/broken')).toHaveLength(4);
  expect((await hooks.get(`/api/extras/webhook-deliveries/${failed.id}/`)).body.attempt_count).toBe(4);
  expect((await hooks.post('/api/extras/webhook-deliveries/999999/retry/', {})).status).toBe(404);

  // all failed ones at once, narrowed by webhook
  answers.push(500, 500, 500);
  await ten.post('/api/tenancy/contact-roles/', { name: 'Doomed again', slug: 'doomed-again' });
  await eventually(async () => (await hooks.get(`/api/extras/webhook-deliveries/?webhook_id=${hook.body.id}&status=failed`)).body.count === 1, 15_000, 'failed again');
  const all = await hooks.post(`/api/extras/webhook-deliveries/retry/?webhook_id=${hook.body.id}`, {});
  expect(all.body).toEqual({ retried: 1 });
  await eventually(async () => (await hooks.get(`/api/extras/webhook-deliveries/?webhook_id=${hook.body.id}&status=succeeded`)).body.count === 2, 15_000, 'all retried');
});

test('when the conditions do not hold, or the webhook is disabled, then nothing is sent', async () => {
  await hooks.post('/api/extras/webhooks/', {
    name: 'Only active',
    content_types: ['tenancy.contactgroup'],
    type_create: true,
    payload_url: `${base}/conditional`,
    conditions: { and: [{ attr: 'slug', value: 'wanted' }] },
  });
  await hooks.post('/api/extras/webhooks/', { name: 'Off', content_types: ['tenancy.contactgroup'], type_create: true, enabled: false, payload_url: `${base}/off` });
  await ten.post('/api/tenancy/contact-groups/', { name: 'Other', slug: 'other' });
  await ten.post('/api/tenancy/contact-groups/', { name: 'Wanted', slug: 'wanted' });
  await eventually(() => to('/conditional').length === 1, 15_000, 'the matching one');
  await new Promise((r) => setTimeout(r, 300));
  expect(JSON.parse(to('/conditional')[0].body).data.slug).toBe('wanted');
  expect(to('/off')).toHaveLength(0);
});

/** A receiver that answers nothing until `release()`: what waits for it waits until then (no time to miss). */
async function heldReceiver(): Promise<{ receiver: TestReceiver; release: () => void }> {
  let release!: () => void;
  const hold = new Promise<void>((r) => (release = r));
  return { receiver: await startReceiver(() => ({ hold })), release };
}

test('when one receiver is slow, then other webhooks\' deliveries do not wait for it', async () => {
  const { receiver: slow, release } = await heldReceiver();
  try {
    const slowUrl = `${slow.url}/slow`;
    await hooks.post('/api/extras/webhooks/', { name: 'Slow', content_types: ['tenancy.contact'], type_create: true, payload_url: slowUrl });
    await hooks.post('/api/extras/webhooks/', { name: 'Fast', content_types: ['tenancy.contact'], type_create: true, payload_url: `${base}/fast` });
    // five slow deliveries hold their slots; the fast webhook's five go through meanwhile
    for (let i = 0; i < 5; i++) await ten.post('/api/tenancy/contacts/', { name: `Contact ${i}` });
    await eventually(() => to('/fast').length === 5, 10_000, 'the fast deliveries');
    // all of them while the slow receiver held every request it had (answered none, none given up on)
    expect(slow.received.length).toBeGreaterThan(0);
    expect([slow.answered, slow.dropped]).toEqual([0, 0]);
  } finally {
    release();
    await slow.close();
  }
});

test('when a slow receiver has more deliveries than the process has senders, then another webhook\'s deliveries still go through at once', async () => {
  // held until the test lets go, under a dispatcher timeout longer than the test (a timeout would free the senders)
  const { receiver: slow, release } = await heldReceiver();
  try {
    const slowUrl = `${slow.url}/slower`;
    await hooks.post('/api/extras/webhooks/', { name: 'Slower', content_types: ['tenancy.tenant'], type_update: true, payload_url: slowUrl });
    await hooks.post('/api/extras/webhooks/', { name: 'Quick', content_types: ['tenancy.tenant'], type_update: true, payload_url: `${base}/quick` });
    const made = await ten.post('/api/tenancy/tenants/', Array.from({ length: 20 }, (_, i) => ({ name: `Busy ${i}`, slug: `busy-${i}` })));
    expect(made.status).toBe(201);
    // 20 updates: 20 deliveries for each webhook, the slow one's first in the queue
    const updated = await ten.patch('/api/tenancy/tenants/', made.body.map((t: { id: number }) => ({ id: t.id, description: 'busy' })));
    expect(updated.status).toBe(200);
    await eventually(() => to('/quick').length === 20, 15_000, 'the quick deliveries');
    // 8 senders all held by the slow receiver would have held the quick ones until it answered or was given up on
    expect(slow.received.length).toBeGreaterThan(0);
    expect([slow.answered, slow.dropped]).toEqual([0, 0]);
  } finally {
    release();
    await slow.close();
  }
});

test('when a webhook is deleted, then its deliveries go with it, with no change event of their own', async () => {
  const hook = await hooks.post('/api/extras/webhooks/', { name: 'Short-lived', content_types: ['tenancy.tenant'], type_create: true, payload_url: `${base}/short` });
  for (const slug of ['short-1', 'short-2']) await ten.post('/api/tenancy/tenants/', { name: slug, slug });
  await eventually(() => to('/short').length === 2, 15_000, 'two deliveries');
  expect((await hooks.delete(`/api/extras/webhooks/${hook.body.id}/`)).status).toBe(204);
  expect((await hooks.get(`/api/extras/webhook-deliveries/?webhook_id=${hook.body.id}`)).body.count ?? 0).toBe(0);
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query(`SELECT model, event FROM webhooks._outbox WHERE object_id = $1 AND event = 'deleted' OR model = 'extras.webhookdelivery'`, [hook.body.id]);
    expect(rows).toEqual([{ model: 'extras.webhook', event: 'deleted' }]);
  } finally {
    await db.end();
  }
});

test('when a finished delivery is older than the retention, then the service prunes it at start; recent and unfinished ones stay', async () => {
  const hook = await hooks.post('/api/extras/webhooks/', { name: 'Kept', content_types: ['tenancy.contact'], type_create: true, payload_url: `${base}/kept` });
  for (const name of ['Old', 'Recent', 'Pending']) await ten.post('/api/tenancy/contacts/', { name });
  await eventually(() => to('/kept').length === 3, 15_000, 'three deliveries');
  const ids = (await hooks.get(`/api/extras/webhook-deliveries/?webhook_id=${hook.body.id}&ordering=id`)).body.results.map((d: { id: number }) => d.id);
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    await db.query(`UPDATE webhooks.webhook_delivery SET last_updated = now() - interval '31 days' WHERE id = ANY($1::bigint[])`, [[ids[0], ids[2]]]);
    // the third one is still being retried (far in the future): old, but not finished
    await db.query(`UPDATE webhooks.webhook_delivery SET status = 'retrying', next_attempt_at = now() + interval '1 day' WHERE id = $1`, [ids[2]]);
  } finally {
    await db.end();
  }
  await stack.stopService('webhooks');
  await stack.startService('webhooks');
  hooks = stack.client('webhooks');
  await eventually(async () => (await hooks.get(`/api/extras/webhook-deliveries/?webhook_id=${hook.body.id}`)).body.count === 2, 10_000, 'pruned');
  const left = (await hooks.get(`/api/extras/webhook-deliveries/?webhook_id=${hook.body.id}&ordering=id`)).body.results.map((d: { id: number }) => d.id);
  expect(left).toEqual([ids[1], ids[2]]);
});

test('when the receiver speaks TLS with its own certificate, then it is refused unless its CA file is given or SSL verification is off', async () => {
  // a self-signed certificate for 127.0.0.1, made by openssl for this test
  const dir = mkdtempSync(path.join(os.tmpdir(), 'webhook-tls-'));
  const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const paths: string[] = [];
  const tls = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    paths.push(req.url ?? '');
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
  try {
    const hook = async (name: string, extra: Record<string, unknown>) =>
      (await hooks.post('/api/extras/webhooks/', { name, content_types: ['tenancy.tenantgroup'], type_delete: true, payload_url: `${url}/${name}`, ...extra })).body.id as number;
    const strict = await hook('strict', {});
    const withCa = await hook('with-ca', { ca_file_path: cert });
    const unverified = await hook('unverified', { ssl_verification: false });
    const group = await ten.post('/api/tenancy/tenant-groups/', { name: 'Over TLS', slug: 'over-tls' });
    expect((await ten.delete(`/api/tenancy/tenant-groups/${group.body.id}/`)).status).toBe(204);
    const status = async (id: number) => (await hooks.get(`/api/extras/webhook-deliveries/?webhook_id=${id}`)).body.results[0]?.status.value;
    await eventually(async () => (await status(withCa)) === 'succeeded' && (await status(unverified)) === 'succeeded' && (await status(strict)) === 'failed', 15_000, 'the three outcomes');
    expect(paths.sort()).toEqual(['/unverified', '/with-ca']);
    const [refused] = (await hooks.get(`/api/extras/webhook-deliveries/?webhook_id=${strict}`)).body.results;
    expect(refused.attempts[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/self[- ]signed/i) });
  } finally {
    tls.closeAllConnections();
    await new Promise((r) => tls.close(r));
    rmSync(dir, { recursive: true, force: true });
  }
});
