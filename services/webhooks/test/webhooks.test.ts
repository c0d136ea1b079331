import pg from 'pg';
import { bootStack, readOutbox, type Client, type Stack } from '@inventory/testkit';
import { createService as extras } from '@inventory/extras';
import { createService as webhooks, webhooksModels } from '@inventory/webhooks';

// the contract suite of the webhook record runs in contract.test.ts

const PATH = '/api/extras/webhooks/';
const DELIVERIES = '/api/extras/webhook-deliveries/';
const SECRET = 'do-not-show-me-0123456789';

let stack: Stack;
let api: Client;
let db: pg.Client;
beforeAll(async () => {
  stack = await bootStack({ extras, webhooks }, {}, { template: true });
  api = stack.client('webhooks');
  db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

let n = 0;
const body = (more: Record<string, unknown> = {}) => ({
  name: `Hook ${++n}`,
  content_types: ['dcim.site'],
  type_create: true,
  payload_url: 'http://127.0.0.1:9000/',
  ...more,
});

/** Every string anywhere in a JSON value. */
const texts = (v: unknown): string[] =>
  typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => [k, ...texts(x)]) : [];

describe('the webhook record', () => {
  test('when created with only the required fields, then the defaults are the seed\'s and NetBox\'s', async () => {
    const r = await api.post(PATH, body());
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      content_types: ['dcim.site'],
      type_create: true,
      type_update: false,
      type_delete: false,
      enabled: true,
      http_method: 'POST',
      http_content_type: 'application/json',
      additional_headers: '',
      body_template: '',
      conditions: null,
      ssl_verification: true,
      ca_file_path: null,
      description: '',
      tags: [],
      custom_fields: {},
    });
    expect(r.body.display).toBe(r.body.name);
    expect(r.body).not.toHaveProperty('secret');
  });

  test('when no event type is selected, then 400 under __all__ with the seed\'s rule', async () => {
    const r = await api.post(PATH, body({ type_create: false, type_update: false, type_delete: false }));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ __all__: ['At least one event type must be selected: create, update, and/or delete.'] });
    const made = await api.post(PATH, body({ type_update: true }));
    const off = await api.patch(`${PATH}${made.body.id}/`, { type_create: false, type_update: false });
    expect(off.status).toBe(400);
    expect(off.body.__all__).toBeDefined();
  });

  test('when the HTTP method is not one of GET, POST, PUT, PATCH, DELETE, then 400 naming http_method', async () => {
    const r = await api.post(PATH, body({ http_method: 'PUSH' }));
    expect(r.status).toBe(400);
    expect(Object.keys(r.body)).toEqual(['http_method']);
    expect(r.body.http_method[0]).toMatch(/PUSH.* is not a valid choice\./);
    for (const m of ['GET', 'PUT', 'PATCH', 'DELETE']) expect((await api.post(PATH, body({ http_method: m }))).status).toBe(201);
  });

  test('when the conditions are not a condition set, then 400 naming conditions with §C.11\'s text', async () => {
    const cases: [unknown, RegExp][] = [
      ['status', /^Ruleset must be a dictionary/],
      [[{ attr: 'status.value', value: 'active' }], /^Ruleset must be a dictionary/],
      [{ and: [], or: [] }, /^Ruleset must have exactly one logical operator \(found 2\)/],
      [{ xor: [] }, /^Invalid logic type: xor/],
    ];
    for (const [conditions, text] of cases) {
      const r = await api.post(PATH, body({ conditions }));
      expect([conditions, r.status]).toEqual([conditions, 400]);
      expect(Object.keys(r.body)).toEqual(['conditions']);
      expect(r.body.conditions[0]).toMatch(text);
    }
    const good = await api.post(PATH, body({ conditions: { and: [{ attr: 'status.value', value: 'active' }] } }));
    expect(good.status).toBe(201);
    expect(good.body.conditions).toEqual({ and: [{ attr: 'status.value', value: 'active' }] });
  });

  test('when a template does not parse, then 400 naming the field; empty conditions are none', async () => {
    for (const field of ['payload_url', 'additional_headers', 'body_template']) {
      const r = await api.post(PATH, body({ [field]: 'http://x/{% if %}' }));
      expect([field, r.status]).toEqual([field, 400]);
      expect(Object.keys(r.body)).toEqual([field]);
    }
    const templated = await api.post(PATH, body({ payload_url: 'http://127.0.0.1:9000/{{ data.slug }}/', body_template: '{"name": "{{ data.name }}"}' }));
    expect(templated.status).toBe(201);
    const empty = await api.post(PATH, body({ conditions: {} }));
    expect(empty.status).toBe(201);
  });

  test('when a CA file is given with SSL verification off, then 400 naming ca_file_path (NetBox 3.7)', async () => {
    const r = await api.post(PATH, body({ ssl_verification: false, ca_file_path: '/etc/ssl/ca.pem' }));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ ca_file_path: ['Do not specify a CA certificate file if SSL verification is disabled.'] });
  });

  test('when the name is taken, then 400 naming name', async () => {
    const first = await api.post(PATH, body());
    const again = await api.post(PATH, body({ name: first.body.name }));
    expect(again.status).toBe(400);
    expect(again.body.name).toBeDefined();
  });
});

describe('the secret', () => {
  test('when a webhook has a secret, then no response, change event or filter ever shows it, and it is stored', async () => {
    const created = await api.post(PATH, body({ secret: SECRET }));
    expect(created.status).toBe(201);
    const id = created.body.id;
    const replies = [
      created,
      await api.get(`${PATH}${id}/`),
      await api.get(`${PATH}${id}/?brief=1`),
      await api.get(`${PATH}?id=${id}`),
      await api.get(`${PATH}?id=${id}&fields=id,secret`),
      await api.patch(`${PATH}${id}/`, { description: 'changed' }),
      await api.patch(PATH, [{ id, description: 'bulk' }]),
      await api.put(`${PATH}${id}/`, body({ name: created.body.name, secret: `${SECRET}-2` })),
      await api.post(PATH, [body({ secret: SECRET })]),
    ];
    for (const r of replies) {
      expect(r.status).toBeLessThan(300);
      expect(r.text).not.toContain(SECRET);
      expect(texts(r.body)).not.toContain('secret');
    }
    // a write-only field is no filter (no guessing it one query at a time)
    const filtered = await api.get(`${PATH}?secret=${SECRET}-2`);
    expect(filtered.headers.get('x-ignored-parameters')).toBe('secret');
    const ordered = await api.get(`${PATH}?ordering=secret`);
    expect(ordered.status).toBe(400);
    // nor does the change event (the outbox: data and both snapshots) carry it
    const events = (await readOutbox(stack.databaseUrl, 'webhooks')).filter((e) => e.model === 'extras.webhook');
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    // stored for the dispatcher, and kept by a PUT that does not send it (clients cannot read it back)
    const stored = async () => (await db.query('SELECT secret FROM webhooks.webhook WHERE id = $1', [id])).rows[0].secret;
    expect(await stored()).toBe(`${SECRET}-2`);
    await api.put(`${PATH}${id}/`, body({ name: created.body.name }));
    expect(await stored()).toBe(`${SECRET}-2`);
    // OPTIONS describes it as a write field
    const options = await api.options(PATH);
    expect(options.body.actions.POST.secret).toMatchObject({ type: 'string', read_only: false });
  });
});

describe('the delivery log', () => {
  let hookId: number;
  const insert = (values: { event_id: string; status?: string; object_type?: string; request_id?: string }) =>
    db.query(
      `INSERT INTO webhooks.webhook_delivery (webhook_id, event_id, event, object_type, object_id, request_id, status, attempts, attempt_count)
       VALUES ($1, $2, 'created', $3, 7, $4, $5, $6, 1) RETURNING id`,
      [
        hookId,
        values.event_id,
        values.object_type ?? 'dcim.site',
        values.request_id ?? 'b5c1e1a6-3d3c-4e55-9f7e-0a2b7c9d1e01',
        values.status ?? 'succeeded',
        JSON.stringify([{ time: '2024-05-06T12:43:46Z', status_code: 200, duration_ms: 12, error: null, response: 'ok' }]),
      ],
    );

  beforeAll(async () => {
    hookId = (await api.post(PATH, body({ name: 'Delivery hook' }))).body.id;
  });

  test('when deliveries are recorded, then they list with their webhook nested and filter by status, webhook, type and request', async () => {
    const a = (await insert({ event_id: '6f1c1e55-8f65-4f55-8f0e-000000000001' })).rows[0].id;
    const b = (await insert({ event_id: '6f1c1e55-8f65-4f55-8f0e-000000000002', status: 'failed', object_type: 'tenancy.tenant', request_id: 'c0ffee00-0000-4000-8000-000000000000' })).rows[0].id;
    const list = await api.get(DELIVERIES);
    expect(list.status).toBe(200);
    const one = list.body.results.find((d: { id: number }) => d.id === Number(a));
    expect(one).toMatchObject({
      webhook: { id: hookId, name: 'Delivery hook', display: 'Delivery hook' },
      event_id: '6f1c1e55-8f65-4f55-8f0e-000000000001',
      event: { value: 'created', label: 'Created' },
      object_type: 'dcim.site',
      object_id: 7,
      status: { value: 'succeeded', label: 'Succeeded' },
      attempt_count: 1,
      next_attempt_at: null,
    });
    expect(one.attempts[0]).toMatchObject({ status_code: 200, duration_ms: 12 });
    expect(one.url).toMatch(new RegExp(`/api/extras/webhook-deliveries/${a}/$`));
    const ids = async (q: string) => (await api.get(`${DELIVERIES}?${q}`)).body.results.map((d: { id: number }) => d.id).sort();
    expect(await ids('status=failed')).toEqual([Number(b)]);
    expect(await ids(`webhook_id=${hookId}`)).toEqual([Number(a), Number(b)].sort());
    expect(await ids('object_type=tenancy.tenant')).toEqual([Number(b)]);
    expect(await ids('request_id=c0ffee00-0000-4000-8000-000000000000')).toEqual([Number(b)]);
    expect(await ids(`webhook_id=${hookId}&created__gte=2000-01-01T00:00:00Z&created__lte=2999-01-01T00:00:00Z`)).toEqual([Number(a), Number(b)].sort());
    expect(await ids(`webhook_id=${hookId}&created__lte=2000-01-01T00:00:00Z`)).toEqual([]);
  });

  test('when the same event is recorded twice for a webhook, then the database refuses the second delivery', async () => {
    await insert({ event_id: '6f1c1e55-8f65-4f55-8f0e-000000000003' });
    await expect(insert({ event_id: '6f1c1e55-8f65-4f55-8f0e-000000000003' })).rejects.toThrow(/webhook_delivery_webhook_id_event_id_where_event_\w+_uniq/);
  });

  test('when a client writes to the delivery log, then 405 and OPTIONS offers no actions', async () => {
    const id = (await insert({ event_id: '6f1c1e55-8f65-4f55-8f0e-000000000004' })).rows[0].id;
    for (const [method, path] of [
      ['POST', DELIVERIES],
      ['PUT', DELIVERIES],
      ['PATCH', DELIVERIES],
      ['DELETE', DELIVERIES],
      ['PUT', `${DELIVERIES}${id}/`],
      ['PATCH', `${DELIVERIES}${id}/`],
      ['DELETE', `${DELIVERIES}${id}/`],
    ]) {
      const r = await api.request(method, path, { body: method === 'DELETE' && path === DELIVERIES ? [{ id }] : {} });
      expect([method, path, r.status]).toEqual([method, path, 405]);
      expect(r.body).toEqual({ detail: `Method "${method}" not allowed.` });
    }
    expect((await api.get(`${DELIVERIES}${id}/`)).status).toBe(200);
    const options = await api.options(DELIVERIES);
    expect(options.status).toBe(200);
    expect(options.body.actions).toBeUndefined();
  });

  test('when a webhook is deleted, then its deliveries go with it', async () => {
    const doomed = (await api.post(PATH, body())).body.id;
    await db.query(
      `INSERT INTO webhooks.webhook_delivery (webhook_id, event_id, event, object_type, object_id, status, attempts, attempt_count)
       VALUES ($1, '6f1c1e55-8f65-4f55-8f0e-000000000005', 'deleted', 'dcim.site', 1, 'queued', '[]', 0)`,
      [doomed],
    );
    expect((await api.get(`${DELIVERIES}?webhook_id=${doomed}`)).body.count).toBe(1);
    expect((await api.delete(`${PATH}${doomed}/`)).status).toBe(204);
    // (the filter now names a webhook that is gone: a 400, as NetBox answers unknown relation values)
    expect((await db.query('SELECT count(*)::int AS n FROM webhooks.webhook_delivery WHERE webhook_id = $1', [doomed])).rows[0].n).toBe(0);
    expect((await api.get(`${DELIVERIES}?webhook_id=${doomed}`)).status).toBe(400);
  });

  test('when the extras area is listed by this service, then it names its three endpoints', async () => {
    const r = await api.get('/api/extras/');
    expect(Object.keys(r.body)).toEqual(['event-rules', 'webhook-deliveries', 'webhooks']);
    expect(webhooksModels.models.map((m) => m.label)).toEqual(['extras.webhook', 'extras.eventrule', 'extras.webhookdelivery']);
  });
});
