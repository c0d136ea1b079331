import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { bootStack, startBroker, type Stack } from '@inventory/testkit';
import { contentType } from '@inventory/refs';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as users } from '@inventory/users';

/**
 * The change log end to end: tenancy writes, its outbox relay publishes,
 * extras consumes into /api/extras/object-changes/. The queue is this
 * suite's own, so other suites' extras (on the same broker) take none of
 * its events; other suites' events do reach it, hence the filters by
 * request id below. The users service resolves the events' username.
 */
const queue = `extras.changelog.test-${randomUUID()}`;
let stack: Stack;
let broker: { url: string; stop(): Promise<void> };
let adminId: number;
const started = new Date(Date.now() - 1000).toISOString();

beforeAll(async () => {
  broker = await startBroker();
  stack = await bootStack({ extras: (c) => extras(c, { changelogQueue: queue }), tenancy, users }, { AMQP_URL: broker.url }, { template: true });
  await consuming(queue);
  // the test kit's identity is `admin`: a user of that name, for the change log to resolve
  const admin = await stack.client('users').post('/api/users/users/', { username: 'admin', password: 'Secret-Passw0rd!' });
  expect(admin.status).toBe(201);
  adminId = admin.body.id;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  const conn = await amqp.connect(broker.url).catch(() => null);
  if (conn) {
    const ch = await conn.createChannel();
    await ch.deleteQueue(queue).catch(() => undefined);
    await ch.deleteQueue(`${queue}.dead`).catch(() => undefined);
    await ch.deleteExchange(`${queue}.dlx`).catch(() => undefined);
    await conn.close().catch(() => undefined);
  }
  await broker?.stop();
});

/** Waits until extras consumes its queue (declared and bound): events published before it exists would not reach it. */
async function consuming(name: string, ms = 30_000): Promise<void> {
  const conn = await amqp.connect(broker.url);
  try {
    const end = Date.now() + ms;
    for (;;) {
      const ch = await conn.createChannel();
      ch.on('error', () => undefined);
      const found = await ch.checkQueue(name).then(
        (q) => q.consumerCount > 0,
        () => false,
      );
      await ch.close().catch(() => undefined);
      if (found) return;
      if (Date.now() > end) throw new Error(`extras never consumed ${name}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await conn.close().catch(() => undefined);
  }
}

type Change = {
  id: number;
  url: string;
  display: string;
  time: string;
  user: unknown;
  user_name: string;
  request_id: string;
  action: { value: string; label: string };
  changed_object_type: string;
  changed_object_id: number;
  changed_object: Record<string, unknown> | null;
  prechange_data: Record<string, unknown> | null;
  postchange_data: Record<string, unknown> | null;
};

/** The object changes a query finds, once there are at least `n` (the consumer is asynchronous). */
async function changes(query: string, n: number, ms = 20_000): Promise<Change[]> {
  const end = Date.now() + ms;
  for (;;) {
    const res = await stack.client('extras').get(`/api/extras/object-changes/?${query}`);
    expect(res.status).toBe(200);
    if (res.body.results.length >= n) return res.body.results;
    if (Date.now() > end) throw new Error(`timed out waiting for ${n} object changes matching ${query}: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const rid = (res: { headers: Headers }) => String(res.headers.get('x-request-id'));

describe('change log', () => {
  const ten = () => stack.client('tenancy');
  const ex = () => stack.client('extras');
  let tenantId: number;
  const ids: Record<string, string> = {};

  test('when a tenant is created, then one object change records it with the request id, the user name and the snapshot', async () => {
    const res = await ten().post('/api/tenancy/tenants/', { name: 'Change One', slug: 'change-one' });
    expect(res.status).toBe(201);
    tenantId = res.body.id;
    ids.create = rid(res);
    const [c] = await changes(`request_id=${ids.create}`, 1);
    expect(Object.keys(c)).toEqual([
      'id', 'url', 'display', 'time', 'user', 'user_name', 'request_id', 'action', 'changed_object_type',
      'changed_object_id', 'changed_object', 'prechange_data', 'postchange_data',
    ]);
    expect(c).toMatchObject({
      url: `${stack.urls.extras}/api/extras/object-changes/${c.id}/`,
      display: 'Tenancy | tenant Change One created by admin',
      user: { id: adminId, url: `${stack.urls.extras}/api/users/users/${adminId}/`, display: 'admin', username: 'admin' },
      user_name: 'admin',
      request_id: ids.create,
      action: { value: 'create', label: 'Created' },
      changed_object_type: 'tenancy.tenant',
      changed_object_id: tenantId,
      changed_object: { id: tenantId, url: `${stack.urls.extras}/api/tenancy/tenants/${tenantId}/`, display: 'Change One', name: 'Change One', slug: 'change-one' },
      prechange_data: null,
    });
    expect(c.postchange_data).toMatchObject({ name: 'Change One', slug: 'change-one' });
    expect(Date.parse(c.time)).toBeGreaterThanOrEqual(Date.parse(started));
    const one = await ex().get(`/api/extras/object-changes/${c.id}/`);
    expect(one.body).toEqual(c);
  });

  test('when the tenant is updated, then the change carries both snapshots and the earlier change shows the object as it is now', async () => {
    const res = await ten().patch(`/api/tenancy/tenants/${tenantId}/`, { name: 'Change Renamed' });
    expect(res.status).toBe(200);
    ids.update = rid(res);
    const [c] = await changes(`request_id=${ids.update}`, 1);
    expect(c.action).toEqual({ value: 'update', label: 'Updated' });
    expect(c.prechange_data).toMatchObject({ name: 'Change One' });
    expect(c.postchange_data).toMatchObject({ name: 'Change Renamed' });
    expect(c.display).toBe('Tenancy | tenant Change Renamed updated by admin');
    const [created] = await changes(`request_id=${ids.create}`, 1);
    expect(created.changed_object).toMatchObject({ display: 'Change Renamed', name: 'Change Renamed' });
  });

  test('when three tenants are created in one bulk request, then their three changes share its request id', async () => {
    const res = await ten().post('/api/tenancy/tenants/', [1, 2, 3].map((i) => ({ name: `Bulk ${i}`, slug: `bulk-${i}` })));
    expect(res.status).toBe(201);
    ids.bulk = rid(res);
    const found = await changes(`request_id=${ids.bulk}`, 3);
    expect(found).toHaveLength(3);
    expect(found.map((c) => c.changed_object_id).sort()).toEqual(res.body.map((t: { id: number }) => t.id).sort());
    expect(new Set(found.map((c) => c.request_id))).toEqual(new Set([ids.bulk]));
    expect(found.every((c) => c.action.value === 'create')).toBe(true);
  });

  test('when the tenant is deleted, then the change holds the prechange snapshot and the object is null on all its changes', async () => {
    const res = await ten().delete(`/api/tenancy/tenants/${tenantId}/`);
    expect(res.status).toBe(204);
    ids.delete = rid(res);
    const [c] = await changes(`request_id=${ids.delete}`, 1);
    expect(c).toMatchObject({ action: { value: 'delete', label: 'Deleted' }, changed_object: null, postchange_data: null });
    expect(c.prechange_data).toMatchObject({ name: 'Change Renamed' });
    expect(c.display).toBe('Tenancy | tenant Change Renamed deleted by admin');
    const history = await changes(`changed_object_type=tenancy.tenant&changed_object_id=${tenantId}&request_id=${ids.create}&request_id=${ids.update}&request_id=${ids.delete}`, 3);
    expect(history.map((h) => h.action.value)).toEqual(['delete', 'update', 'create']); // newest first
    expect(history.map((h) => h.changed_object)).toEqual([null, null, null]);
  });

  test('when filtered, then action, object type and id, user name, time and request id narrow the list; bad values are 400', async () => {
    const mine = `request_id=${ids.create}&request_id=${ids.update}&request_id=${ids.delete}&request_id=${ids.bulk}`;
    expect((await changes(mine, 6)).length).toBe(6);
    const deletes = await changes(`${mine}&action=delete`, 1);
    expect(deletes.map((c) => c.request_id)).toEqual([ids.delete]);
    const updates = await changes(`${mine}&action__n=create&action__n=delete`, 1);
    expect(updates.map((c) => c.request_id)).toEqual([ids.update]);
    const ctId = contentType('tenancy.tenant')!.id;
    expect(await changes(`${mine}&changed_object_type_id=${ctId}`, 6)).toHaveLength(6);
    expect((await ex().get(`/api/extras/object-changes/?${mine}&changed_object_type=dcim.site`)).body.count).toBe(0);
    expect(await changes(`${mine}&user_name=admin&user=admin&user_id=${adminId}`, 6)).toHaveLength(6);
    expect((await ex().get(`/api/extras/object-changes/?${mine}&user_id=${adminId + 1}`)).body.count).toBe(0);
    expect((await ex().get(`/api/extras/object-changes/?${mine}&user_name=nobody`)).body.count).toBe(0);
    // NetBox's `__n` lookups of `user` (a username) and `changed_object_type` (app_label.model): an exclude
    expect((await ex().get(`/api/extras/object-changes/?${mine}&user__n=admin`)).body.count).toBe(0);
    expect(await changes(`${mine}&user__n=nobody`, 6)).toHaveLength(6);
    expect((await ex().get(`/api/extras/object-changes/?${mine}&changed_object_type__n=tenancy.tenant`)).body.count).toBe(0);
    expect(await changes(`${mine}&changed_object_type__n=dcim.site`, 6)).toHaveLength(6);
    expect(await changes(`${mine}&time__gte=${encodeURIComponent(started)}&time_after=${encodeURIComponent(started)}`, 6)).toHaveLength(6);
    expect((await ex().get(`/api/extras/object-changes/?${mine}&time__lt=${encodeURIComponent(started)}`)).body.count).toBe(0);
    expect(await changes(`${mine}&q=bulk`, 3)).toHaveLength(3);
    expect(await changes(`request_id=${ids.bulk.toUpperCase()}`, 3)).toHaveLength(3);
    const bad = await ex().get('/api/extras/object-changes/?request_id=not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ request_id: ['Enter a valid UUID.'] });
    const oldest = await changes(`${mine}&ordering=time`, 6);
    expect(oldest[0].request_id).toBe(ids.create);
  });

  test('when written to, then the change log answers 405: it is read-only', async () => {
    expect((await ex().post('/api/extras/object-changes/', {})).status).toBe(405);
    const [c] = await changes(`request_id=${ids.create}`, 1);
    expect((await ex().patch(`/api/extras/object-changes/${c.id}/`, {})).status).toBe(405);
    expect((await ex().delete(`/api/extras/object-changes/${c.id}/`)).status).toBe(405);
  });
});

describe('by-request filters', () => {
  test('when tenants are filtered by the request that created, updated or modified them, then those are the ones found', async () => {
    const api = stack.client('tenancy');
    const made = await api.post('/api/tenancy/tenants/', [1, 2, 3].map((i) => ({ name: `Req ${i}`, slug: `req-${i}` })));
    expect(made.status).toBe(201);
    const createdBy = rid(made);
    const madeIds = made.body.map((t: { id: number }) => t.id).sort();
    const changed = await api.patch(`/api/tenancy/tenants/${madeIds[0]}/`, { description: 'changed' });
    const updatedBy = rid(changed);
    const slugsOf = async (q: string) => {
      const res = await api.get(`/api/tenancy/tenants/?${q}`);
      expect(res.status).toBe(200);
      return res.body.results.map((t: { id: number }) => t.id).sort();
    };
    expect(await slugsOf(`created_by_request=${createdBy}`)).toEqual(madeIds);
    expect(await slugsOf(`updated_by_request=${createdBy}`)).toEqual([]);
    expect(await slugsOf(`updated_by_request=${updatedBy}`)).toEqual([madeIds[0]]);
    expect(await slugsOf(`modified_by_request=${updatedBy}`)).toEqual([madeIds[0]]);
    expect(await slugsOf(`modified_by_request=${createdBy}`)).toEqual(madeIds);
    expect(await slugsOf(`created_by_request=${createdBy.replace(/-/g, '').toUpperCase()}`)).toEqual(madeIds);
    expect(await slugsOf(`created_by_request=${randomUUID()}`)).toEqual([]);
    expect(await slugsOf('created_by_request=')).toEqual(expect.arrayContaining(madeIds));
    const bad = await api.get('/api/tenancy/tenants/?modified_by_request=nope');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ modified_by_request: ['Enter a valid UUID.'] });
  });
});
