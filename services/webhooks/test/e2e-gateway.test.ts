import { createHmac } from 'node:crypto';
import * as http from 'node:http';
import { freePort } from '@inventory/infra';
import { bootStack, Client, eventually, startReceiver, type Answer, type Received, type Stack, type TestReceiver, gatewayUser } from '@inventory/testkit';
import { createService as users } from '@inventory/users';
import { createService as extras } from '@inventory/extras';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as dcim } from '@inventory/dcim';
import { stackGateway } from '@inventory/gateway';
import { createService as webhooks } from '@inventory/webhooks';

/**
 * Every seed behaviour of webhooks end to end, as a client sees it: writes
 * through the gateway with a real token of the real users service, events
 * through the outbox and a real RabbitMQ, the dispatcher sending to real HTTP
 * receivers, and the delivery log read back through the gateway. Retries run
 * on a short schedule (0.2 s, 0.4 s: three attempts).
 */

const USERNAME = 'hooks-e2e';
const HOOKS = '/api/extras/webhooks/';
const DELIVERIES = '/api/extras/webhook-deliveries/';
const SITES = '/api/dcim/sites/';
const CONTEXT_KEYS = ['event', 'timestamp', 'model', 'username', 'request_id', 'data', 'snapshots'];

let stack: Stack;
let gw: Client;
/** The test user's API token. */
let tokenKey: string;
let rx: TestReceiver;
/** Answers by path (200 at once otherwise). */
const answers = new Map<string, (r: Received) => Answer | undefined>();
/** Webhooks a test made, deleted after it (so no test's writes reach another's webhooks). */
const made: number[] = [];

const gateway = stackGateway();

beforeAll(async () => {
  rx = await startReceiver((r) => answers.get(r.path.split('?')[0])?.(r));
  stack = await bootStack({
    users,
    extras,
    tenancy,
    dcim,
    webhooks: (config) => webhooks({ ...config, WEBHOOK_RETRY_SCHEDULE: '0.2,0.4' }),
    gateway,
  }, {}, { template: true });
  ({ client: gw, key: tokenKey } = await gatewayUser(stack, USERNAME, [{ object_types: ['extras.webhook', 'extras.webhookdelivery', 'extras.tag', 'dcim.site', 'tenancy.tenant'] }]));
}, 120_000);

afterEach(async () => {
  for (const id of made.splice(0)) await gw.delete(`${HOOKS}${id}/`);
  answers.clear();
});

afterAll(async () => {
  await stack?.stop();
  await rx?.close();
});

let n = 0;
/** A webhook on dcim.site (create only unless told), sending to `path` of the receiver. */
async function hook(path: string, more: Record<string, unknown> = {}): Promise<{ id: number; name: string }> {
  const r = await gw.post(HOOKS, { name: `E2E ${++n} ${path}`, content_types: ['dcim.site'], type_create: true, payload_url: `${rx.url}${path}`, ...more });
  expect([path, r.status, r.body]).toEqual([path, 201, expect.anything()]);
  made.push(r.body.id);
  return r.body;
}

async function site(name: string, more: Record<string, unknown> = {}) {
  const r = await gw.post(SITES, { name, slug: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'), ...more });
  expect([name, r.status]).toEqual([name, 201]);
  return r;
}

async function deliveriesOf(webhookId: number, query = ''): Promise<any[]> {
  const r = await gw.get(`${DELIVERIES}?webhook_id=${webhookId}&limit=1000${query}`);
  expect(r.status).toBe(200);
  return r.body.results;
}

const bodyOf = (r: Received) => JSON.parse(r.body);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('what a webhook sends', () => {
  test('when a site is created through the gateway, then the default body is the context (exactly its seven keys, the token\'s user, the response\'s request id), signed over its exact bytes, and the log says succeeded', async () => {
    const signed = await hook('/default', { secret: 'e2e-secret-ünïcode' });
    const plain = await hook('/default-unsigned');
    const created = await site('Default Body', { status: 'planned', description: 'héllo wörld' });
    await eventually(() => rx.to('/default').length === 1 && rx.to('/default-unsigned').length === 1, 15_000, 'both deliveries');

    const [r] = rx.to('/default');
    expect(r.method).toBe('POST');
    expect(r.headers['content-type']).toBe('application/json');
    // the signature: lowercase hex HMAC-SHA512 of the exact body bytes, keyed with the secret's UTF-8 bytes
    expect(r.headers['x-hook-signature']).toMatch(/^[0-9a-f]{128}$/);
    expect(r.headers['x-hook-signature']).toBe(createHmac('sha512', Buffer.from('e2e-secret-ünïcode', 'utf8')).update(r.raw).digest('hex'));
    expect(rx.to('/default-unsigned')[0].headers).not.toHaveProperty('x-hook-signature');

    const body = bodyOf(r);
    expect(Object.keys(body)).toEqual(CONTEXT_KEYS);
    expect(body.event).toBe('created');
    expect(body.model).toBe('site');
    expect(body.username).toBe(USERNAME);
    expect(body.request_id).toBe(created.headers.get('x-request-id'));
    expect(body.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
    expect(Math.abs(Date.parse(body.timestamp) - Date.now())).toBeLessThan(60_000);
    // data: the object's REST representation
    expect(body.data).toMatchObject({ id: created.body.id, name: 'Default Body', slug: 'default-body', status: { value: 'planned' }, description: 'héllo wörld' });
    // (the seed: "typically equal to its REST representation"; §D.3 has it relative, the representation a client reads has the gateway's)
    expect(body.data.url).toMatch(new RegExp(`^(${stack.urls.gateway})?/api/dcim/sites/${created.body.id}/$`));
    // snapshots: no prechange for a creation, the stored fields after it
    expect(Object.keys(body.snapshots)).toEqual(['prechange', 'postchange']);
    expect(body.snapshots.prechange).toBeNull();
    expect(body.snapshots.postchange).toMatchObject({ name: 'Default Body', slug: 'default-body', status: 'planned' });
    // non-ASCII travels ASCII-escaped in the default body (Python's json.dumps), and decodes back the same
    expect([...r.raw].every((byte) => byte < 0x80)).toBe(true);
    expect(r.body).toContain('h\\u00e9llo w\\u00f6rld');

    const [d] = await deliveriesOf(signed.id);
    expect(d).toMatchObject({ status: { value: 'succeeded' }, attempt_count: 1, event: { value: 'created' }, object_id: created.body.id, request_id: body.request_id });
    expect(r.headers['x-delivery-id']).toBe(`${d.event_id}:${d.id}`);
    expect(await deliveriesOf(plain.id)).toHaveLength(1);
  });

  test('when a write names another host than the gateway\'s (its Host header, ALLOWED_HOSTS *), then its answer uses that host and the webhook\'s payload the configured one', async () => {
    await hook('/host');
    const gwUrl = new URL(stack.urls.gateway);
    const body = JSON.stringify({ name: 'Other Host', slug: 'other-host' });
    const answer = await new Promise<{ status: number; location: string; json: Record<string, any> }>((resolve, reject) => {
      const req = http.request(
        { host: gwUrl.hostname, port: gwUrl.port, path: SITES, method: 'POST', headers: { host: 'elsewhere.example:8443', authorization: `Token ${tokenKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, location: String(res.headers.location), json: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(answer.status).toBe(201);
    expect(answer.json.url).toBe(`http://elsewhere.example:8443/api/dcim/sites/${answer.json.id}/`);
    expect(answer.location).toBe(answer.json.url);
    await eventually(() => rx.to('/host').length === 1, 15_000, 'the delivery');
    // never a host a request named: the gateway's own address (PUBLIC_URL when it is set)
    expect(bodyOf(rx.to('/host')[0]).data.url).toBe(`${stack.urls.gateway}/api/dcim/sites/${answer.json.id}/`);
  });

  test('when create, update and delete are each selected by one webhook, then each fires only for its own kind, with event created/updated/deleted and the snapshots of that kind', async () => {
    await hook('/kind/create');
    await hook('/kind/update', { type_create: false, type_update: true });
    await hook('/kind/delete', { type_create: false, type_delete: true });
    await hook('/kind/all', { type_update: true, type_delete: true });
    const created = await site('Kinds', { status: 'active' });
    const updated = await gw.patch(`${SITES}${created.body.id}/`, { status: 'planned' });
    expect(updated.status).toBe(200);
    const deleted = await gw.delete(`${SITES}${created.body.id}/`);
    expect(deleted.status).toBe(204);
    await eventually(() => rx.to('/kind/all').length === 3, 15_000, () => `3 deliveries to /kind/all, got ${rx.to('/kind/all').length}`);
    await eventually(() => ['create', 'update', 'delete'].every((k) => rx.to(`/kind/${k}`).length >= 1), 15_000, 'one delivery per kind');
    await sleep(500); // anything that should not come

    const only = (k: string) => rx.to(`/kind/${k}`).map(bodyOf);
    expect(only('create').map((b) => b.event)).toEqual(['created']);
    expect(only('update').map((b) => b.event)).toEqual(['updated']);
    expect(only('delete').map((b) => b.event)).toEqual(['deleted']);
    expect(only('all').map((b) => b.event).sort()).toEqual(['created', 'deleted', 'updated']);

    const [c] = only('create');
    expect(c.snapshots.prechange).toBeNull();
    expect(c.snapshots.postchange.status).toBe('active');
    const [u] = only('update');
    expect(u.snapshots.prechange.status).toBe('active');
    expect(u.snapshots.postchange.status).toBe('planned');
    expect(u.data.status.value).toBe('planned');
    expect(u.request_id).toBe(updated.headers.get('x-request-id'));
    const [d] = only('delete');
    // a deletion: no postchange; data is the object as it was just before
    expect(d.snapshots.postchange).toBeNull();
    expect(d.snapshots.prechange.status).toBe('planned');
    expect(d.data).toMatchObject({ id: created.body.id, name: 'Kinds', status: { value: 'planned' } });
    expect(d.request_id).toBe(deleted.headers.get('x-request-id'));
    for (const b of [c, u, d]) expect(b.username).toBe(USERNAME);
  });

  test('when a webhook is disabled, or watches another object type, then a site\'s change sends nothing through it (and once enabled again it fires)', async () => {
    const control = await hook('/enabled');
    const off = await hook('/disabled', { enabled: false });
    const tenants = await hook('/tenants-only', { content_types: ['tenancy.tenant'] });
    await site('Not For Them');
    await eventually(async () => (await deliveriesOf(control.id)).length === 1, 15_000, 'the enabled webhook\'s delivery');
    // the event was matched against every webhook in one transaction: the others have no delivery at all
    expect(await deliveriesOf(off.id)).toEqual([]);
    expect(await deliveriesOf(tenants.id)).toEqual([]);
    await eventually(() => rx.to('/enabled').length === 1, 15_000, 'the enabled webhook\'s request');
    await sleep(300);
    expect(rx.to('/disabled')).toEqual([]);
    expect(rx.to('/tenants-only')).toEqual([]);

    // the same webhooks do fire when they should: the disabled one once enabled, the tenant one for a tenant
    expect((await gw.patch(`${HOOKS}${off.id}/`, { enabled: true })).status).toBe(200);
    await site('For Them Now');
    const tenant = await gw.post('/api/tenancy/tenants/', { name: 'Hooked Tenant', slug: 'hooked-tenant' });
    expect(tenant.status).toBe(201);
    await eventually(() => rx.to('/disabled').length === 1 && rx.to('/tenants-only').length === 1, 15_000, 'the re-enabled and the tenant deliveries');
    expect(bodyOf(rx.to('/disabled')[0]).data.name).toBe('For Them Now');
    expect(bodyOf(rx.to('/tenants-only')[0])).toMatchObject({ model: 'tenant', data: { name: 'Hooked Tenant' } });
  });

  test('when webhooks carry conditions (§C.11: and/or nesting, dotted attrs, eq/in/contains/regex, negate, list paths), then each fires exactly for the sites its conditions hold for', async () => {
    const tag = await gw.post('/api/extras/tags/', { name: 'Alpha', slug: 'alpha' });
    expect(tag.status).toBe(201);
    const cases: Record<string, { conditions: unknown; expect: string[] }> = {
      'status-active': { conditions: { and: [{ attr: 'status.value', value: 'active' }] }, expect: ['cond-one'] },
      'not-active': { conditions: { and: [{ attr: 'status.value', value: 'active', negate: true }] }, expect: ['cond-two', 'other-three'] },
      'status-in': { conditions: { and: [{ attr: 'status.value', value: ['planned', 'retired'], op: 'in' }] }, expect: ['cond-two', 'other-three'] },
      'name-regex': { conditions: { and: [{ attr: 'name', value: 'Cond', op: 'regex' }] }, expect: ['cond-one', 'cond-two'] },
      // regex is anchored at the start: "Two" is inside "Cond Two" but does not start it
      'regex-anchored': { conditions: { and: [{ attr: 'name', value: 'Two', op: 'regex' }] }, expect: [] },
      'slug-contains': { conditions: { and: [{ attr: 'slug', value: 'three', op: 'contains' }] }, expect: ['other-three'] },
      'tag-slugs': { conditions: { and: [{ attr: 'tags.slug', value: 'alpha', op: 'contains' }] }, expect: ['cond-one'] },
      'or-of-two': { conditions: { or: [{ attr: 'slug', value: 'cond-one' }, { attr: 'facility', value: 'F3' }] }, expect: ['cond-one', 'other-three'] },
      nested: {
        conditions: { and: [{ attr: 'name', value: 'Cond', op: 'regex' }, { or: [{ attr: 'status.value', value: 'planned' }, { attr: 'facility', value: 'F9' }] }] },
        expect: ['cond-two'],
      },
      'nested-negated': {
        conditions: { or: [{ and: [{ attr: 'status.value', value: 'active' }, { attr: 'facility', value: 'F1', negate: true }] }, { attr: 'description', value: 'three', op: 'contains' }] },
        expect: ['other-three'],
      },
      'missing-attr-is-null': { conditions: { and: [{ attr: 'no_such_field.value', value: null }] }, expect: ['cond-one', 'cond-two', 'other-three'] },
    };
    for (const [key, c] of Object.entries(cases)) await hook(`/cond/${key}`, { conditions: c.conditions });
    await site('Cond One', { status: 'active', facility: 'F1', tags: [{ slug: 'alpha' }] });
    await site('Cond Two', { status: 'planned', facility: 'F2' });
    await site('Other Three', { status: 'retired', facility: 'F3', description: 'number three' });
    const expected = Object.values(cases).reduce((s, c) => s + c.expect.length, 0);
    const got = () => rx.received.filter((r) => r.path.startsWith('/cond/')).length;
    await eventually(() => got() >= expected, 15_000, () => `${expected} conditional deliveries, got ${got()}`);
    await sleep(500);
    const actual = Object.fromEntries(Object.keys(cases).map((k) => [k, rx.to(`/cond/${k}`).map((r) => bodyOf(r).data.slug).sort()]));
    expect(actual).toEqual(Object.fromEntries(Object.entries(cases).map(([k, c]) => [k, c.expect])));
  });

  test('when the URL, additional headers and body are templates, then they are rendered with the context (attribute and key lookup, tojson, filters), with the configured method and content type, and signed as sent', async () => {
    await hook('/tpl-reference');
    const templated = await hook('/tpl/{{ data.slug }}?event={{ event }}&model={{ model }}', {
      http_method: 'PUT',
      http_content_type: 'application/x-inventory',
      secret: 'template-secret',
      additional_headers: 'X-Site-Name: {{ data.name }}\nX-Status: {{ data.status.value | upper }}\nX-Request: {{ request_id }}',
      body_template: '{"by_attr": "{{ data.name }}", "by_key": "{{ data[\'name\'] }}", "user": "{{ username }}", "event": "{{ event }}", "whole": {{ data | tojson }}}',
    });
    expect(templated.id).toBeGreaterThan(0);
    const created = await site('Templated Site', { status: 'staging' });
    await eventually(() => rx.to('/tpl/templated-site?event=created&model=site').length === 1 && rx.to('/tpl-reference').length === 1, 15_000, 'the templated delivery');
    const [r] = rx.to('/tpl/templated-site?event=created&model=site');
    expect(r.method).toBe('PUT');
    expect(r.headers['content-type']).toBe('application/x-inventory');
    expect(r.headers['x-site-name']).toBe('Templated Site');
    expect(r.headers['x-status']).toBe('STAGING');
    expect(r.headers['x-request']).toBe(created.headers.get('x-request-id'));
    expect(r.headers['x-hook-signature']).toBe(createHmac('sha512', 'template-secret').update(r.raw).digest('hex'));
    const body = bodyOf(r);
    expect(Object.keys(body)).toEqual(['by_attr', 'by_key', 'user', 'event', 'whole']);
    expect(body).toMatchObject({ by_attr: 'Templated Site', by_key: 'Templated Site', user: USERNAME, event: 'created' });
    // `data | tojson` is the same data the default body carries
    expect(body.whole).toEqual(bodyOf(rx.to('/tpl-reference')[0]).data);
  });
});

describe('requests and deliveries', () => {
  test('when several sites are created in one bulk POST, then each gets its own delivery and all carry the response\'s request id', async () => {
    const h = await hook('/bulk');
    const r = await gw.post(SITES, [
      { name: 'Bulk A', slug: 'bulk-a' },
      { name: 'Bulk B', slug: 'bulk-b' },
      { name: 'Bulk C', slug: 'bulk-c' },
      { name: 'Bulk D', slug: 'bulk-d' },
    ]);
    expect(r.status).toBe(201);
    expect(r.body).toHaveLength(4);
    const requestId = r.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    await eventually(() => rx.to('/bulk').length >= 4, 15_000, () => `4 bulk deliveries, got ${rx.to('/bulk').length}`);
    await sleep(300);
    const bodies = rx.to('/bulk').map(bodyOf);
    expect(bodies).toHaveLength(4);
    expect(new Set(bodies.map((b) => b.request_id))).toEqual(new Set([requestId]));
    expect(bodies.map((b) => b.data.id).sort((a, b) => a - b)).toEqual(r.body.map((s: { id: number }) => s.id).sort((a: number, b: number) => a - b));
    expect(new Set(rx.to('/bulk').map((x) => x.headers['x-delivery-id'])).size).toBe(4);
    // the log, filtered by that request id, has the four
    const log = await gw.get(`${DELIVERIES}?request_id=${requestId}&webhook_id=${h.id}`);
    expect(log.body.count).toBe(4);
    expect(log.body.results.every((d: { status: { value: string } }) => d.status.value === 'succeeded')).toBe(true);
  });

  test('when the receiver holds every request, then the API\'s writes still answer (the client does not wait for delivery)', async () => {
    const h = await hook('/hold');
    // nothing is answered until the test lets go: a write that waited for its delivery would never answer
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    answers.set('/hold', () => ({ hold }));
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await site(`Held ${i}`);
      times.push(performance.now() - t0);
    }
    // the deliveries are under way (or about to be) while every write has already answered
    await eventually(() => rx.to('/hold').length === 5, 15_000, () => `5 held requests, got ${rx.to('/hold').length}`);
    console.log(`client not waiting: write times ${times.map((t) => t.toFixed(0)).join(', ')} ms with the receiver holding every request`);
    // every write answered while its delivery was held unanswered (how fast writes are is the benchmarks')
    release();
    await eventually(async () => (await deliveriesOf(h.id, '&status=succeeded')).length === 5, 15_000, 'the held deliveries to succeed');
  });

  test('when the receiver answers 500 twice and then 200, then the delivery succeeds once: one record, three attempts, three requests with the same delivery id', async () => {
    const h = await hook('/flaky');
    let calls = 0;
    answers.set('/flaky', () => ({ status: ++calls <= 2 ? 500 : 200 }));
    await site('Flaky');
    await eventually(async () => (await deliveriesOf(h.id, '&status=succeeded')).length === 1, 15_000, () => `success after the retries (the receiver got ${rx.to('/flaky').length} requests)`);
    await sleep(800); // longer than the whole schedule: nothing more may come
    const log = await deliveriesOf(h.id);
    expect(log).toHaveLength(1);
    expect(log[0].attempt_count).toBe(3);
    expect(log[0].attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 200]);
    const requests = rx.to('/flaky');
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.headers['x-delivery-id']))).toEqual(new Set([`${log[0].event_id}:${log[0].id}`]));
    expect(requests.map((r) => r.headers['x-delivery-attempt'])).toEqual(['1', '2', '3']);
    // the same body each time
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    expect(requests[2].at - requests[0].at).toBeGreaterThanOrEqual(550);
  });

  test('when the receiver answers 410 Gone, then the delivery is not tried again: one request, failed', async () => {
    const h = await hook('/gone');
    answers.set('/gone', () => ({ status: 410 }));
    await site('Gone');
    await eventually(async () => (await deliveriesOf(h.id, '&status=failed')).length === 1, 15_000, () => `the delivery failed (the receiver got ${rx.to('/gone').length} requests)`);
    await sleep(800); // longer than the whole schedule: no retry may come
    expect(rx.to('/gone')).toHaveLength(1);
    const [log] = await deliveriesOf(h.id);
    expect(log.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([410]);
  });

  test('when the receiver is down past the last attempt, then the delivery is failed in the API with its attempts, and retrying it (one, then all failed) delivers it once the receiver is back', async () => {
    const port = await freePort();
    const h = await hook('/down', { payload_url: `http://127.0.0.1:${port}/down` });
    const first = await site('Down One');
    await eventually(async () => (await deliveriesOf(h.id, '&status=failed')).length === 1, 15_000, 'the failed delivery');
    const [failed] = await deliveriesOf(h.id);
    expect(failed).toMatchObject({ status: { value: 'failed' }, attempt_count: 3, object_id: first.body.id, next_attempt_at: null });
    expect(failed.attempts).toHaveLength(3);
    for (const a of failed.attempts) {
      expect(a.status_code).toBeNull();
      expect(a.error).toEqual(expect.any(String));
    }
    const detail = await gw.get(`${DELIVERIES}${failed.id}/`);
    expect(detail.status).toBe(200);
    expect(detail.body.status.value).toBe('failed');
    // the failed filter finds it
    expect((await gw.get(`${DELIVERIES}?status=failed&webhook_id=${h.id}`)).body.count).toBe(1);

    // the receiver is back: retry the one
    const back = await startReceiver(undefined, port);
    try {
      const one = await gw.post(`${DELIVERIES}${failed.id}/retry/`, {});
      expect(one.status).toBe(200);
      expect(one.body).toEqual({ retried: 1 });
      await eventually(async () => (await gw.get(`${DELIVERIES}${failed.id}/`)).body.status.value === 'succeeded', 15_000, 'the retried delivery');
      expect(back.to('/down')).toHaveLength(1);
      expect(back.to('/down')[0].headers['x-delivery-id']).toBe(`${failed.event_id}:${failed.id}`);
      expect(bodyOf(back.to('/down')[0]).data.id).toBe(first.body.id);
      expect((await gw.get(`${DELIVERIES}${failed.id}/`)).body.attempt_count).toBe(4);
    } finally {
      await back.close();
    }

    // down again for two more: both fail; back again, retry all failed of the webhook
    await site('Down Two');
    await site('Down Three');
    await eventually(async () => (await deliveriesOf(h.id, '&status=failed')).length === 2, 15_000, 'two more failed');
    const again = await startReceiver(undefined, port);
    try {
      const all = await gw.post(`${DELIVERIES}retry/?webhook_id=${h.id}`, {});
      expect(all.status).toBe(200);
      expect(all.body).toEqual({ retried: 2 });
      await eventually(async () => (await deliveriesOf(h.id, '&status=succeeded')).length === 3, 15_000, 'all three succeeded');
      await sleep(300);
      expect(again.to('/down').map((r) => bodyOf(r).data.name).sort()).toEqual(['Down Three', 'Down Two']);
      // nothing failed is left to retry
      expect((await gw.post(`${DELIVERIES}retry/?webhook_id=${h.id}`, {})).body).toEqual({ retried: 0 });
    } finally {
      await again.close();
    }
  });
});
