import { createHmac } from 'node:crypto';
import { bootStack, eventually, startReceiver, type Client, type Stack, type TestReceiver } from '@inventory/testkit';
import { createService as extras } from '@inventory/extras';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as webhooks } from '@inventory/webhooks';

/**
 * NetBox 3.7's event rules end to end: tenancy's change events, through
 * RabbitMQ, to a real HTTP receiver, for a 3.7-shaped webhook (no triggers
 * of its own) fired by a rule, beside a seed-shaped webhook's own triggers.
 */
let stack: Stack;
let ten: Client;
let hooks: Client;
let rx: TestReceiver;

beforeAll(async () => {
  rx = await startReceiver();
  stack = await bootStack({ extras, tenancy, webhooks: (config) => webhooks({ ...config, WEBHOOK_RETRY_SCHEDULE: '0.2,0.4' }) }, {}, { template: true });
  ten = stack.client('tenancy');
  hooks = stack.client('webhooks');
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await rx?.close();
});

const RULES = '/api/extras/event-rules/';

/** A webhook in NetBox 3.7's shape: what to send, no triggers. */
async function plainHook(name: string, path: string, more: Record<string, unknown> = {}): Promise<number> {
  const r = await hooks.post('/api/extras/webhooks/', { name, payload_url: `${rx.url}${path}`, ...more });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ content_types: [], type_create: false, type_update: false, type_delete: false });
  return r.body.id as number;
}

const rule = (name: string, webhook: number, more: Record<string, unknown> = {}) => ({
  name,
  content_types: ['tenancy.tenant'],
  type_create: true,
  action_type: 'webhook',
  action_object_type: 'extras.webhook',
  action_object_id: webhook,
  ...more,
});

const deliveries = async (query: string) => (await hooks.get(`/api/extras/webhook-deliveries/?${query}`)).body;

test('when a change matches an event rule\'s conditions, then its 3.7-shaped webhook is sent the default body, signed; a change that does not match sends nothing', async () => {
  const id = await plainHook('Rule target', '/by-rule', { secret: 'rule-secret' });
  const made = await hooks.post(RULES, rule('Active tenants', id, { conditions: { and: [{ attr: 'description', value: 'wanted' }] } }));
  expect(made.status).toBe(201);
  expect(made.body).toMatchObject({
    action_type: { value: 'webhook', label: 'Webhook' },
    action_object_type: 'extras.webhook',
    action_object_id: id,
    action_object: { id, name: 'Rule target', display: 'Rule target' },
    type_job_start: false,
    enabled: true,
  });
  await ten.post('/api/tenancy/tenants/', { name: 'Unwanted', slug: 'unwanted', description: 'other' });
  const t = await ten.post('/api/tenancy/tenants/', { name: 'Wanted', slug: 'wanted', description: 'wanted' });
  await eventually(() => rx.to('/by-rule').length === 1, 15_000, 'the rule\'s delivery');
  await new Promise((r) => setTimeout(r, 300));
  expect(rx.to('/by-rule')).toHaveLength(1);
  const [r] = rx.to('/by-rule');
  expect(r.headers['x-hook-signature']).toBe(createHmac('sha512', 'rule-secret').update(r.body).digest('hex'));
  expect(JSON.parse(r.body)).toMatchObject({ event: 'created', model: 'tenant', data: { id: t.body.id, slug: 'wanted' } });
  await eventually(async () => (await deliveries(`webhook_id=${id}`)).results[0]?.status?.value === 'succeeded', 15_000, 'recorded');
  const log = await deliveries(`webhook_id=${id}`);
  expect(log.count).toBe(1);
  expect(log.results[0].event_rule).toMatchObject({ id: made.body.id, name: 'Active tenants' });
});

test('when a change matches a webhook\'s own triggers and an event rule to it, then it gets one delivery for each; the seed-shaped webhook alone is unchanged', async () => {
  const seed = await hooks.post('/api/extras/webhooks/', { name: 'Seed shaped', content_types: ['tenancy.tenantgroup'], type_create: true, payload_url: `${rx.url}/both` });
  expect(seed.status).toBe(201);
  const alone = await hooks.post('/api/extras/webhooks/', { name: 'Seed alone', content_types: ['tenancy.tenantgroup'], type_create: true, payload_url: `${rx.url}/alone` });
  const r = await hooks.post(RULES, rule('Groups too', seed.body.id, { content_types: ['tenancy.tenantgroup'] }));
  expect(r.status).toBe(201);
  await ten.post('/api/tenancy/tenant-groups/', { name: 'G1', slug: 'g1' });
  await eventually(() => rx.to('/both').length === 2 && rx.to('/alone').length === 1, 15_000, 'both deliveries');
  await new Promise((res) => setTimeout(res, 300));
  expect(rx.to('/both')).toHaveLength(2);
  expect(rx.to('/alone')).toHaveLength(1);
  // same body, different deliveries
  const [a, b] = rx.to('/both');
  expect(a.body).toBe(b.body);
  expect(a.headers['x-delivery-id']).not.toBe(b.headers['x-delivery-id']);
  const log = await deliveries(`webhook_id=${seed.body.id}`);
  expect(log.results.map((d: { event_rule: { id: number } | null }) => d.event_rule?.id ?? null).sort()).toEqual([r.body.id, null].sort());
  expect((await deliveries(`webhook_id=${alone.body.id}`)).results[0].event_rule).toBeNull();
});

test('when an event rule is disabled or its event type does not match, then its webhook is not sent', async () => {
  const id = await plainHook('Quiet target', '/quiet');
  await hooks.post(RULES, rule('Off rule', id, { enabled: false, content_types: ['tenancy.contactgroup'] }));
  await hooks.post(RULES, rule('Deletes only', id, { type_create: false, type_delete: true, content_types: ['tenancy.contactgroup'] }));
  const loud = await plainHook('Loud target', '/loud');
  await hooks.post(RULES, rule('On rule', loud, { content_types: ['tenancy.contactgroup'] }));
  await ten.post('/api/tenancy/contact-groups/', { name: 'C1', slug: 'c1' });
  await eventually(() => rx.to('/loud').length === 1, 15_000, 'the enabled rule');
  await new Promise((res) => setTimeout(res, 300));
  expect(rx.to('/quiet')).toHaveLength(0);
});

test('when an event rule is invalid, then the answers are NetBox\'s 400s, naming the field', async () => {
  const id = await plainHook('Validation target', '/never');
  const bad = async (body: Record<string, unknown>) => (await hooks.post(RULES, body)).body;
  expect(await bad(rule('No types', id, { type_create: false }))).toEqual({
    __all__: ['At least one event type must be selected: create, update, delete, job start, and/or job end.'],
  });
  expect(Object.keys(await bad(rule('Script', id, { action_type: 'script', action_object_type: 'extras.webhook' })))).toEqual(['action_type']);
  expect(Object.keys(await bad(rule('Not a webhook', id, { action_object_type: 'tenancy.tenant' })))).toEqual(['action_object_type']);
  expect(await bad(rule('Missing', 999999))).toEqual({ action_object_id: ['Related object not found using the provided numeric ID: 999999'] });
  expect(Object.keys(await bad(rule('Bad conditions', id, { conditions: ['x'] })))).toEqual(['conditions']);
  // a seed-shaped webhook still needs both halves of its triggers
  const half = await hooks.post('/api/extras/webhooks/', { name: 'Half', type_create: true, payload_url: `${rx.url}/x` });
  expect(half.body).toEqual({ content_types: ['This field is required.'] });
});

test('when a webhook that event rules act with is deleted, then the rules go with it, as NetBox\'s generic relation cascades', async () => {
  const id = await plainHook('Doomed', '/doomed');
  const r = await hooks.post(RULES, rule('Doomed rule', id));
  expect((await hooks.delete(`/api/extras/webhooks/${id}/`)).status).toBe(204);
  expect((await hooks.get(`${RULES}${r.body.id}/`)).status).toBe(404);
});
