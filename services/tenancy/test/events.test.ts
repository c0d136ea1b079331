import amqp, { type ChannelModel } from 'amqplib';
import { declareConsumerQueue, eventsOf as messageEvents, type ChangeEvent } from '@inventory/events';
import { bootStack, startBroker, type Client, type Stack } from '@inventory/testkit';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';

/** Every REST write emits exactly its change events, through the outbox and the relay, to a real RabbitMQ. */
let stack: Stack;
let broker: { url: string; stop(): Promise<void> };
let conn: ChannelModel;
let api: Client;
const seen: ChangeEvent[] = [];

beforeAll(async () => {
  broker = await startBroker();
  stack = await bootStack({ extras, tenancy }, { AMQP_URL: broker.url }, { template: true });
  api = stack.client('tenancy');
  conn = await amqp.connect(broker.url);
  const ch = await conn.createChannel();
  const queue = `test.tenancy-events.${Date.now()}`;
  await declareConsumerQueue(ch, { name: queue, bindings: ['tenancy.#'] });
  await ch.consume(queue, (m) => {
    if (!m) return;
    seen.push(...messageEvents(m.content)!.events); // a lone event or a pack
    ch.ack(m);
  });
}, 120_000);
afterAll(async () => {
  await conn?.close();
  await stack?.stop();
  await broker?.stop();
});

/** Events of these objects, once `n` of them arrived (then a short grace period for any extra one). */
async function eventsOf(ids: number[], n: number): Promise<ChangeEvent[]> {
  const pick = () => seen.filter((e) => e.model === 'tenancy.tenant' && ids.includes(e.object_id));
  const end = Date.now() + 15_000;
  while (pick().length < n) {
    if (Date.now() > end) throw new Error(`expected ${n} events for ${ids}, got ${pick().length}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 300));
  return pick();
}

test('when a tenant is created, updated and deleted, then one event each carries its data, snapshots, version and request id', async () => {
  const created = await api.post('/api/tenancy/tenants/', { name: 'Evented', slug: 'evented', description: 'one' });
  const updated = await api.patch(`/api/tenancy/tenants/${created.body.id}/`, { description: 'two' });
  expect((await api.delete(`/api/tenancy/tenants/${created.body.id}/`)).status).toBe(204);
  const events = await eventsOf([created.body.id], 3);
  expect(events.map((e) => [e.event, e.version])).toEqual([
    ['created', 1],
    ['updated', 2],
    ['deleted', 2],
  ]);
  const [c, u, d] = events;
  expect(c.data).toEqual(created.body);
  expect(c.request_id).toBe(created.headers.get('x-request-id'));
  expect(c.username).toBe('admin');
  expect(c.snapshots.prechange).toBeNull();
  expect(c.snapshots.postchange).toMatchObject({ name: 'Evented', description: 'one', group: null, tags: [], custom_fields: {} });
  expect(u.data).toEqual(updated.body);
  expect(u.snapshots).toMatchObject({ prechange: { description: 'one' }, postchange: { description: 'two' } });
  expect(d.data).toEqual(updated.body);
  expect(d.snapshots).toMatchObject({ prechange: { description: 'two' }, postchange: null });
  expect(new Set(events.map((e) => e.id)).size).toBe(3);
});

test('when three tenants are created in one bulk request, then three events share its request id; a rolled-back bulk write emits nothing', async () => {
  const bulk = await api.post('/api/tenancy/tenants/', [1, 2, 3].map((i) => ({ name: `Bulk ${i}`, slug: `bulk-${i}` })));
  const ids = bulk.body.map((t: { id: number }) => t.id);
  const events = await eventsOf(ids, 3);
  expect(events).toHaveLength(3);
  expect(new Set(events.map((e) => e.request_id))).toEqual(new Set([bulk.headers.get('x-request-id')]));
  const failed = await api.post('/api/tenancy/tenants/', [{ name: 'Good', slug: 'good-one' }, { name: 'Bad' }]);
  expect(failed.status).toBe(400);
  await new Promise((r) => setTimeout(r, 500));
  expect(seen.filter((e) => e.request_id === failed.headers.get('x-request-id'))).toEqual([]);
});

test('when a write is replayed with its Idempotency-Key, then no event is emitted again', async () => {
  const first = await api.post('/api/tenancy/tenants/', { name: 'Keyed', slug: 'keyed' }, { headers: { 'idempotency-key': 'events-1' } });
  await api.post('/api/tenancy/tenants/', { name: 'Keyed', slug: 'keyed' }, { headers: { 'idempotency-key': 'events-1' } });
  expect(await eventsOf([first.body.id], 1)).toHaveLength(1);
});

/** Events of one request, once `n` arrived. */
async function eventsOfRequest(requestId: string | null, n: number): Promise<ChangeEvent[]> {
  const pick = () => seen.filter((e) => e.request_id === requestId);
  const end = Date.now() + 15_000;
  while (pick().length < n) {
    if (Date.now() > end) throw new Error(`expected ${n} events for request ${requestId}, got ${pick().length}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 300));
  return pick();
}

test('when a group is moved, then it and each of its descendants emit one event', async () => {
  const [a, b, c, other] = (await api.post('/api/tenancy/tenant-groups/', [
    { name: 'MA', slug: 'ma' },
    { name: 'MB', slug: 'mb' },
    { name: 'MC', slug: 'mc' },
    { name: 'MO', slug: 'mo' },
  ])).body;
  await api.patch('/api/tenancy/tenant-groups/', [{ id: b.id, parent: a.id }]);
  await api.patch('/api/tenancy/tenant-groups/', [{ id: c.id, parent: b.id }]);
  const moved = await api.patch(`/api/tenancy/tenant-groups/${a.id}/`, { parent: other.id });
  const events = await eventsOfRequest(moved.headers.get('x-request-id'), 3);
  expect(events.map((e) => [e.model, e.object_id, e.event]).sort()).toEqual(
    [a.id, b.id, c.id].map((id) => ['tenancy.tenantgroup', id, 'updated']).sort(),
  );
  const grandchild = events.find((e) => e.object_id === c.id)!;
  expect(grandchild.snapshots.prechange).toMatchObject({ parent: b.id });
  expect((grandchild.data as { _depth: number })._depth).toBe(3);
});

test('when a group is deleted, then the cascade is applied by the engine: one event per deleted sub-group, cleared tenant and deleted contact assignment', async () => {
  const top = (await api.post('/api/tenancy/tenant-groups/', { name: 'Doomed', slug: 'doomed' })).body;
  const sub = (await api.post('/api/tenancy/tenant-groups/', { name: 'Doomed sub', slug: 'doomed-sub', parent: top.id })).body;
  const tenant = (await api.post('/api/tenancy/tenants/', { name: 'Kept', slug: 'kept', group: sub.id })).body;
  const contact = (await api.post('/api/tenancy/contacts/', { name: 'Cas' })).body;
  const role = (await api.post('/api/tenancy/contact-roles/', { name: 'Casr', slug: 'casr' })).body;
  const assignment = (await api.post('/api/tenancy/contact-assignments/', { content_type: 'tenancy.tenant', object_id: tenant.id, contact: contact.id, role: role.id })).body;
  const del = await api.delete(`/api/tenancy/tenant-groups/${top.id}/`);
  expect(del.status).toBe(204);
  const events = await eventsOfRequest(del.headers.get('x-request-id'), 3);
  expect(events.map((e) => [e.model, e.object_id, e.event]).sort()).toEqual(
    [
      ['tenancy.tenantgroup', top.id, 'deleted'],
      ['tenancy.tenantgroup', sub.id, 'deleted'],
      ['tenancy.tenant', tenant.id, 'updated'],
    ].sort(),
  );
  const cleared = events.find((e) => e.model === 'tenancy.tenant')!;
  expect(cleared.snapshots).toMatchObject({ prechange: { group: sub.id }, postchange: { group: null } });
  const delTenant = await api.delete(`/api/tenancy/tenants/${tenant.id}/`);
  const tenantEvents = await eventsOfRequest(delTenant.headers.get('x-request-id'), 2);
  expect(tenantEvents.map((e) => [e.model, e.object_id, e.event]).sort()).toEqual(
    [
      ['tenancy.contactassignment', assignment.id, 'deleted'],
      ['tenancy.tenant', tenant.id, 'deleted'],
    ].sort(),
  );
});
