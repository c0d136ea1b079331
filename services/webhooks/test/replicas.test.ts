import { bootStack, eventually, startReceiver, type Stack, type TestReceiver } from '@inventory/testkit';
import { createService as extras } from '@inventory/extras';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as webhooks } from '@inventory/webhooks';

/**
 * Two dispatcher replicas on one database and one broker, as a deployment
 * with two webhooks pods runs them: every event makes one delivery, sent
 * once, whichever replica matches it and whichever sends it.
 */
let stack: Stack;
let rx: TestReceiver;

beforeAll(async () => {
  rx = await startReceiver();
  stack = await bootStack({ extras, tenancy, webhooks, 'webhooks-2': webhooks }, {}, { template: true });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await rx?.close();
});

test('when two replicas dispatch, then both take work, and every event is delivered once under one delivery id', async () => {
  const hooks = stack.client('webhooks');
  const hook = await hooks.post('/api/extras/webhooks/', { name: 'Both', content_types: ['tenancy.tenant'], type_create: true, payload_url: `${rx.url}/both` });
  expect(hook.status).toBe(201);
  // both replicas consume the events (matching) and the attempts (sending)
  const consumers = async (queue: string) => {
    const stats = await hooks.get('/admin/webhooks/stats/');
    return stats.body.queues.queues.find((q: { queue: string }) => q.queue === queue).consumers as number;
  };
  await eventually(async () => (await consumers('webhooks.events')) === 2 && (await consumers('webhooks.deliveries')) === 2, 10_000, 'two consumers of each queue');

  const ten = stack.client('tenancy');
  const ids: number[] = [];
  for (let b = 0; b < 6; b++) {
    const made = await ten.post('/api/tenancy/tenants/', Array.from({ length: 50 }, (_, i) => ({ name: `Replica ${b}-${i}`, slug: `replica-${b}-${i}` })));
    expect(made.status).toBe(201);
    ids.push(...made.body.map((t: { id: number }) => t.id));
  }
  await eventually(() => rx.to('/both').length >= ids.length, 30_000, `${ids.length} deliveries`);
  await new Promise((r) => setTimeout(r, 500)); // a repeat, if any, would arrive now
  const got = rx.to('/both');
  const objectIds = got.map((r) => JSON.parse(r.body).data.id as number).sort((a, b) => a - b);
  expect(objectIds).toEqual([...ids].sort((a, b) => a - b));
  expect(new Set(got.map((r) => r.headers['x-delivery-id'])).size).toBe(ids.length);
  const log = await hooks.get(`/api/extras/webhook-deliveries/?webhook_id=${hook.body.id}&status=succeeded&limit=1`);
  expect(log.body.count).toBe(ids.length);
});
