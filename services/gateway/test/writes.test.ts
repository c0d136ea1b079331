import http from 'node:http';
import pg from 'pg';
import { readConfig } from '@inventory/core';
import { bootStack, Client, type Stack } from '@inventory/testkit';
import { createService as users } from '@inventory/users';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createGateway, gatewayConfig } from '@inventory/gateway';

/**
 * Beyond NetBox 3.7, end to end through the gateway with a real token:
 * versions (ETag / If-Match: no lost updates), Idempotency-Key (safe
 * retries), and request bodies over the size limit.
 */
let stack: Stack;
let gw: Client;
let key: string;

const MAX_BODY = 65536;

beforeAll(async () => {
  stack = await bootStack(
    {
      users,
      tenancy,
      extras,
      gateway: (cfg) =>
        createGateway(readConfig(gatewayConfig, { INTERNAL_TOKEN_SECRET: cfg.INTERNAL_TOKEN_SECRET, SERVICE_URLS: cfg.SERVICE_URLS, PORT: String(cfg.PORT), LOG_LEVEL: 'silent', MAX_BODY_SIZE: String(MAX_BODY) })),
    },
    { MAX_BODY_SIZE: String(MAX_BODY) },
    { template: true },
  );
  const admin = await stack.client('users').post('/api/users/users/', { username: 'writer', password: 'writer-password-1' });
  await stack.client('users').post('/api/users/permissions/', {
    name: 'tenancy',
    object_types: ['tenancy.tenant', 'tenancy.tenantgroup'],
    actions: ['view', 'add', 'change', 'delete'],
    users: [admin.body.id],
  });
  key = (await stack.client('users').post('/api/users/tokens/', { user: admin.body.id })).body.key;
  gw = new Client(stack.urls.gateway, { identity: null, headers: { authorization: `Token ${key}` } });
});
afterAll(() => stack?.stop());

const TENANTS = '/api/tenancy/tenants/';

async function tableChecksum(): Promise<string> {
  const c = new pg.Client({ connectionString: stack.databaseUrl });
  await c.connect();
  try {
    const { rows } = await c.query(`SELECT count(*) || ':' || md5(coalesce(string_agg(t::text, '|' ORDER BY t.id), '')) AS sum FROM tenancy.tenant t`);
    return rows[0].sum;
  } finally {
    await c.end();
  }
}

describe('versions: ETag and If-Match', () => {
  test('when an object is read, written and read again, then its ETag changes with every write', async () => {
    const created = await gw.post(TENANTS, { name: 'Versioned', slug: 'versioned' });
    expect(created.status).toBe(201);
    const v1 = created.headers.get('etag');
    expect(v1).toMatch(/^"\d+"$/);
    const read = await gw.get(`${TENANTS}${created.body.id}/`);
    expect(read.headers.get('etag')).toBe(v1);
    const patched = await gw.patch(`${TENANTS}${created.body.id}/`, { description: 'one' }, { headers: { 'if-match': v1! } });
    expect(patched.status).toBe(200);
    const v2 = patched.headers.get('etag');
    expect(v2).not.toBe(v1);
    expect((await gw.get(`${TENANTS}${created.body.id}/`)).headers.get('etag')).toBe(v2);
    const again = await gw.patch(`${TENANTS}${created.body.id}/`, { description: 'one' });
    expect(again.headers.get('etag')).not.toBe(v2);
  });

  test('when If-Match names an old version, then PUT, PATCH and DELETE answer 412 and change nothing', async () => {
    const t = await gw.post(TENANTS, { name: 'Guarded', slug: 'guarded' });
    const stale = t.headers.get('etag')!;
    expect((await gw.patch(`${TENANTS}${t.body.id}/`, { description: 'moved on' })).status).toBe(200);
    const before = await tableChecksum();
    const patch = await gw.patch(`${TENANTS}${t.body.id}/`, { description: 'lost update' }, { headers: { 'if-match': stale } });
    expect(patch.status).toBe(412);
    expect(typeof patch.body.detail).toBe('string');
    const put = await gw.put(`${TENANTS}${t.body.id}/`, { name: 'Guarded', slug: 'guarded', description: 'lost' }, { headers: { 'if-match': stale } });
    expect(put.status).toBe(412);
    const del = await gw.delete(`${TENANTS}${t.body.id}/`, undefined, { headers: { 'if-match': stale } });
    expect(del.status).toBe(412);
    expect(await tableChecksum()).toBe(before);
    const current = (await gw.get(`${TENANTS}${t.body.id}/`)).headers.get('etag')!;
    expect((await gw.patch(`${TENANTS}${t.body.id}/`, { description: 'ok' }, { headers: { 'if-match': `W/${current}, "0"` } })).status).toBe(200);
    expect((await gw.delete(`${TENANTS}${t.body.id}/`, undefined, { headers: { 'if-match': '*' } })).status).toBe(204);
  });
});

describe('safe retries: Idempotency-Key', () => {
  test('when a create is repeated with the same key, then the first answer comes back and nothing is applied again', async () => {
    const body = { name: 'Once', slug: 'once' };
    const first = await gw.post(TENANTS, body, { headers: { 'idempotency-key': 'create-once-1' } });
    expect(first.status).toBe(201);
    const before = await tableChecksum();
    const repeat = await gw.post(TENANTS, body, { headers: { 'idempotency-key': 'create-once-1' } });
    expect(repeat.status).toBe(201);
    expect(repeat.body).toEqual(first.body);
    expect(repeat.headers.get('location')).toBe(first.headers.get('location'));
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(await tableChecksum()).toBe(before);
    const del1 = await gw.delete(`${TENANTS}${first.body.id}/`, undefined, { headers: { 'idempotency-key': 'delete-once-1' } });
    const del2 = await gw.delete(`${TENANTS}${first.body.id}/`, undefined, { headers: { 'idempotency-key': 'delete-once-1' } });
    expect([del1.status, del2.status]).toEqual([204, 204]);
  });

  test('when the same key comes with another body, then it is a 422 and nothing is written', async () => {
    expect((await gw.post(TENANTS, { name: 'K1', slug: 'k1' }, { headers: { 'idempotency-key': 'reused-key' } })).status).toBe(201);
    const before = await tableChecksum();
    const other = await gw.post(TENANTS, { name: 'K2', slug: 'k2' }, { headers: { 'idempotency-key': 'reused-key' } });
    expect(other.status).toBe(422);
    expect(typeof other.body.detail).toBe('string');
    expect(await tableChecksum()).toBe(before);
    expect((await gw.post(TENANTS, { name: 'K3', slug: 'k3' }, { headers: { 'idempotency-key': 'bad key with spaces' } })).status).toBe(400);
  });

  test('when 20 identical requests with one key arrive at once, then exactly one object is created and all get its answer', async () => {
    const body = { name: 'Racer', slug: 'racer' };
    const replies = await Promise.all(Array.from({ length: 20 }, () => gw.post(TENANTS, body, { headers: { 'idempotency-key': 'race-20' } })));
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    expect((await gw.get(`${TENANTS}?slug=racer`)).body.count).toBe(1);
  });

  test('when a write failed, then its repeat with the key runs again', async () => {
    const bad = await gw.post(TENANTS, { name: 'Later' }, { headers: { 'idempotency-key': 'fails-first' } });
    expect(bad.status).toBe(400);
    const good = await gw.post(TENANTS, { name: 'Later', slug: 'later' }, { headers: { 'idempotency-key': 'fails-first' } });
    expect(good.status).toBe(201);
  });
});

describe('request bodies over MAX_BODY_SIZE', () => {
  test('when a body is too large, then the gateway answers 413 and the same keep-alive connection serves the next request', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const url = new URL(TENANTS, stack.urls.gateway);
    const send = (body: string, chunked = false) =>
      new Promise<{ status: number; socket: unknown }>((resolve, reject) => {
        const headers: Record<string, string | number> = { 'content-type': 'application/json', authorization: `Token ${key}` };
        if (!chunked) headers['content-length'] = Buffer.byteLength(body);
        const req = http.request(url, { method: 'POST', agent, headers, timeout: 10_000 }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket }));
        });
        req.on('timeout', () => req.destroy(new Error('timed out: the connection hung')));
        req.on('error', reject);
        if (chunked) {
          for (let i = 0; i < body.length; i += 8192) req.write(body.slice(i, i + 8192));
          req.end();
        } else req.end(body);
      });
    try {
      const big = JSON.stringify({ name: 'big', slug: 'big', comments: 'x'.repeat(4 * MAX_BODY) });
      const first = await send(big);
      expect(first.status).toBe(413);
      const next = await send(JSON.stringify({ name: 'after413', slug: 'after413' }));
      expect(next.status).toBe(201);
      const streamed = await send(big, true);
      expect(streamed.status).toBe(413);
      const last = await send(JSON.stringify({ name: 'afterChunked', slug: 'after-chunked' }));
      expect(last.status).toBe(201);
    } finally {
      agent.destroy();
    }
  });
});
