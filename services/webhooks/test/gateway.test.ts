import { bootStack, Client, type Stack, gatewayUser } from '@inventory/testkit';
import { createService as users } from '@inventory/users';
import { createService as extras } from '@inventory/extras';
import { stackGateway } from '@inventory/gateway';
import { createService as webhooks } from '@inventory/webhooks';

/** Through the gateway, with a real token of the real users service: the webhook endpoints live in this service but under /api/extras/. */
let stack: Stack;
let gw: Client;
let base: string;

const gateway = stackGateway();

beforeAll(async () => {
  stack = await bootStack({ users, extras, webhooks, gateway }, {}, { template: true });
  base = stack.urls.gateway;
  gw = (await gatewayUser(stack, 'hooks-admin', [{ object_types: ['extras.webhook', 'extras.webhookdelivery', 'extras.eventrule', 'extras.tag'] }])).client;
});
afterAll(() => stack?.stop());

describe('webhooks through the gateway', () => {
  test('when the extras area is listed, then it names webhooks and webhook-deliveries beside extras\' own endpoints', async () => {
    const r = await gw.get('/api/extras/');
    expect(r.status).toBe(200);
    expect(r.body.webhooks).toBe(`${base}/api/extras/webhooks/`);
    expect(r.body['webhook-deliveries']).toBe(`${base}/api/extras/webhook-deliveries/`);
    expect(r.body.tags).toBe(`${base}/api/extras/tags/`);
    expect(Object.keys(r.body)).toEqual([...Object.keys(r.body)].sort());
  });

  test('when a webhook is created, read, listed and deleted at /api/extras/webhooks/, then the URLs are the gateway\'s and the secret never shows', async () => {
    const created = await gw.post('/api/extras/webhooks/', {
      name: 'Through the gateway',
      content_types: ['dcim.site'],
      type_create: true,
      payload_url: 'http://127.0.0.1:9000/',
      secret: 'gateway-secret-value',
    });
    expect(created.status).toBe(201);
    expect(created.body.url).toBe(`${base}/api/extras/webhooks/${created.body.id}/`);
    const detail = await gw.get(`/api/extras/webhooks/${created.body.id}/`);
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual(created.body);
    const list = await gw.get('/api/extras/webhooks/?name=Through%20the%20gateway');
    expect(list.body.count).toBe(1);
    for (const r of [created, detail, list]) expect(r.text).not.toContain('gateway-secret-value');
    const invalid = await gw.post('/api/extras/webhooks/', { name: 'No events', content_types: ['dcim.site'], payload_url: 'http://127.0.0.1:9000/' });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({ __all__: ['At least one event type must be selected: create, update, and/or delete.'] });
    const deliveries = await gw.get('/api/extras/webhook-deliveries/');
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.count).toBe(0);
    expect((await gw.post('/api/extras/webhook-deliveries/', {})).status).toBe(405);
    expect((await gw.delete(`/api/extras/webhooks/${created.body.id}/`)).status).toBe(204);
  });

  test('when an event rule is created at /api/extras/event-rules/, then the webhooks service answers it with the gateway\'s URLs', async () => {
    expect((await gw.get('/api/extras/')).body['event-rules']).toBe(`${base}/api/extras/event-rules/`);
    const hook = await gw.post('/api/extras/webhooks/', { name: 'Rule target through the gateway', payload_url: 'http://127.0.0.1:9000/' });
    expect(hook.status).toBe(201);
    const rule = await gw.post('/api/extras/event-rules/', {
      name: 'Sites',
      content_types: ['dcim.site'],
      type_create: true,
      action_object_type: 'extras.webhook',
      action_object_id: hook.body.id,
    });
    expect(rule.status).toBe(201);
    expect(rule.body.url).toBe(`${base}/api/extras/event-rules/${rule.body.id}/`);
    expect(rule.body.action_object.url).toBe(`${base}/api/extras/webhooks/${hook.body.id}/`);
    expect((await gw.get(`/api/extras/event-rules/?action_object_id=${hook.body.id}`)).body.count).toBe(1);
  });

  test('when no token is sent, then the webhook list is refused as every guarded model is', async () => {
    const r = await new Client(base, { identity: null }).get('/api/extras/webhooks/');
    expect(r.status).toBe(403);
  });
});
