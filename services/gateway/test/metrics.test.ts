import http from 'node:http';
import { bootStack, Client, eventually, scrapeMetrics, startReceiver, type Exposition, type Stack, type TestReceiver, gatewayUser } from '@inventory/testkit';
import { createService as users } from '@inventory/users';
import { createService as extras } from '@inventory/extras';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as dcim } from '@inventory/dcim';
import { createService as webhooks } from '@inventory/webhooks';
import { stackGateway } from '@inventory/gateway';

/**
 * /metrics of every kind of process in a real stack: the gateway, a plain
 * service (tenancy), one that projects another's objects (dcim), the change
 * log's consumer (extras) and the webhook dispatcher, scraped before and
 * after writes and reads through the gateway with a real token; the
 * exposition is parsed strictly and the counters compared by difference.
 */

const USERNAME = 'metrics-admin';
const TENANTS = '/api/tenancy/tenants/';

let stack: Stack;
let gw: Client;
let token: string;
let rx: TestReceiver;
/** Deliveries the flaky receiver has refused once already. */
const refusedOnce = new Set<string>();

beforeAll(async () => {
  rx = await startReceiver((r) => {
    if (r.path === '/down') return { status: 503 };
    const id = String(r.headers['x-delivery-id']);
    if (r.path === '/flaky' && !refusedOnce.has(id)) {
      refusedOnce.add(id);
      return { status: 500 };
    }
    return undefined;
  });
  stack = await bootStack({
    users,
    extras,
    tenancy,
    dcim,
    // one retry, 0.2 s after the first attempt
    webhooks: (config) => webhooks({ ...config, WEBHOOK_RETRY_SCHEDULE: '0.2' }),
    gateway: stackGateway(),
  }, {}, { template: true });
  ({ client: gw, key: token } = await gatewayUser(stack, USERNAME, [{ object_types: ['tenancy.tenant'], actions: ['view', 'add'] }]));
  const hooks = stack.client('webhooks');
  for (const path of ['/flaky', '/down']) {
    const r = await hooks.post('/api/extras/webhooks/', { name: `metrics ${path}`, content_types: ['tenancy.tenant'], type_create: true, payload_url: `${rx.url}${path}` });
    expect(r.status).toBe(201);
  }
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await rx?.close();
});

const scrapeAll = async (): Promise<Record<string, Exposition>> => {
  const names = ['gateway', 'tenancy', 'dcim', 'extras', 'webhooks'];
  const pages = await Promise.all(names.map((n) => scrapeMetrics(stack.urls[n])));
  return Object.fromEntries(names.map((n, i) => [n, pages[i]]));
};

/** A route label that is a URL, not a pattern: a segment of digits. */
const looksLikeUrl = (route: string) => /\/\d+(\/|$)/.test(route);

test('when writes and reads go through the gateway, then every process\'s /metrics moves by exactly what it did, under route patterns', async () => {
  const before = await scrapeAll();
  const ids: number[] = [];
  for (const name of ['Metrics A', 'Metrics B']) {
    const r = await gw.post(TENANTS, { name, slug: name.toLowerCase().replace(' ', '-') });
    expect(r.status).toBe(201);
    ids.push(r.body.id);
  }
  for (let i = 0; i < 3; i++) expect((await gw.get(TENANTS)).status).toBe(200);
  expect((await gw.get(`${TENANTS}${ids[0]}/`)).status).toBe(200);
  expect((await gw.get(`${TENANTS}99999999/`)).status).toBe(404);

  // the webhooks: each tenant's delivery to /flaky fails once then succeeds, to /down fails twice (the last attempt)
  const attempts = async (outcome: string) => (await scrapeMetrics(stack.urls.webhooks)).value('inventory_webhook_attempts_total', { outcome });
  await eventually(async () => (await attempts('succeeded')) >= 2 && (await attempts('failed')) >= 2, 30_000, 'the deliveries to end');
  // the projections and the change log have the two tenants
  await eventually(async () => (await scrapeMetrics(stack.urls.dcim)).value('inventory_consumer_lag_seconds_count', { queue: 'dcim.projections', source: 'tenancy' }) >= 2 + before.dcim.value('inventory_consumer_lag_seconds_count', { queue: 'dcim.projections', source: 'tenancy' }), 15_000, 'dcim projections');
  await eventually(async () => (await scrapeMetrics(stack.urls.tenancy)).value('inventory_outbox_backlog') === 0, 15_000, 'the outbox to drain');
  await new Promise((r) => setTimeout(r, 500)); // anything late would show as an excess below
  const after = await scrapeAll();
  const delta = (svc: string, name: string, labels: Record<string, string> = {}) => after[svc].value(name, labels) - before[svc].value(name, labels);
  const req = (route: string, method: string, status_class: string) => ({ route, method, status_class });

  // the service: its own route patterns
  expect(delta('tenancy', 'inventory_http_requests_total', req('/api/tenancy/tenants/', 'POST', '2xx'))).toBe(2);
  expect(delta('tenancy', 'inventory_http_requests_total', req('/api/tenancy/tenants/', 'GET', '2xx'))).toBe(3);
  expect(delta('tenancy', 'inventory_http_requests_total', req('/api/tenancy/tenants/:id/', 'GET', '2xx'))).toBe(1);
  expect(delta('tenancy', 'inventory_http_requests_total', req('/api/tenancy/tenants/:id/', 'GET', '4xx'))).toBe(1);
  expect(delta('tenancy', 'inventory_http_request_duration_seconds_count', req('/api/tenancy/tenants/', 'POST', '2xx'))).toBe(2);
  expect(after.tenancy.value('inventory_http_requests_in_flight')).toBeGreaterThanOrEqual(1); // the scrape itself
  // its outbox: two events published, none waiting, the relay is the publishing one
  expect(delta('tenancy', 'inventory_outbox_published_total')).toBe(2);
  expect(delta('tenancy', 'inventory_outbox_publish_lag_seconds_count')).toBe(2);
  expect(after.tenancy.value('inventory_outbox_backlog')).toBe(0);
  expect(after.tenancy.value('inventory_outbox_oldest_unsent_age_seconds')).toBe(0);
  expect(after.tenancy.value('inventory_outbox_relay_publishing')).toBe(1);
  // its pool: open connections, some idle, nobody waiting
  expect(after.tenancy.value('inventory_db_pool_connections', { pool: 'main' })).toBeGreaterThan(0);
  expect(after.tenancy.value('inventory_db_pool_idle_connections', { pool: 'main' })).toBeGreaterThan(0);
  expect(after.tenancy.value('inventory_db_pool_waiting_clients', { pool: 'main' })).toBe(0);

  // the gateway: a proxied request is counted under its area, the service breaks it down
  expect(delta('gateway', 'inventory_http_requests_total', req('/api/tenancy/*', 'POST', '2xx'))).toBe(2);
  expect(delta('gateway', 'inventory_http_requests_total', req('/api/tenancy/*', 'GET', '2xx'))).toBe(4);
  expect(delta('gateway', 'inventory_http_requests_total', req('/api/tenancy/*', 'GET', '4xx'))).toBe(1);

  // consumers: two tenant events applied by each, their lag per source service
  expect(delta('dcim', 'inventory_consumer_lag_seconds_count', { queue: 'dcim.projections', source: 'tenancy' })).toBe(2);
  expect(delta('extras', 'inventory_consumer_lag_seconds_count', { queue: 'extras.changelog', source: 'tenancy' })).toBe(2);
  expect(delta('webhooks', 'inventory_consumer_lag_seconds_count', { queue: 'webhooks.events', source: 'tenancy' })).toBe(2);
  expect(after.dcim.value('inventory_consumer_connected', { queue: 'dcim.projections' })).toBe(1);
  expect(delta('dcim', 'inventory_consumer_events_total', { queue: 'dcim.projections', outcome: 'failed' })).toBe(0);

  // webhooks: per tenant, /flaky retried then succeeded, /down retried then failed
  expect(delta('webhooks', 'inventory_webhook_attempts_total', { outcome: 'succeeded' })).toBe(2);
  expect(delta('webhooks', 'inventory_webhook_attempts_total', { outcome: 'retried' })).toBe(4);
  expect(delta('webhooks', 'inventory_webhook_attempts_total', { outcome: 'failed' })).toBe(2);
  const queues = after.webhooks.samples.filter((s) => s.name === 'inventory_webhook_queue_messages').map((s) => s.labels.queue);
  expect(queues.sort()).toEqual(['webhooks.dead', 'webhooks.deliveries', 'webhooks.events', 'webhooks.park', 'webhooks.retry.200']);
  expect(after.webhooks.value('inventory_webhook_queue_messages', { queue: 'webhooks.dead' })).toBe(0);

  // every page: its own service label, and route labels that are patterns, never URLs
  for (const [svc, page] of Object.entries(after)) {
    expect([svc, page.types.get('inventory_http_requests_total'), page.types.get('inventory_http_request_duration_seconds')]).toEqual([svc, 'counter', 'histogram']);
    const labelled = page.samples.filter((s) => s.name.startsWith('inventory_'));
    expect([svc, [...new Set(labelled.map((s) => s.labels.service))]]).toEqual([svc, [svc]]);
    const routes = [...new Set(page.samples.map((s) => s.labels.route).filter((r): r is string => r !== undefined))];
    expect([svc, routes.filter(looksLikeUrl)]).toEqual([svc, []]);
  }
}, 120_000);

/** A GET sent as written (fetch would resolve `..` before sending). */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const req = http.request({ host: url.hostname, port: url.port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('when /metrics is asked for through the gateway\'s API routing, then no service\'s metrics come back; the gateway\'s own /metrics has only its figures', async () => {
  const auth = { authorization: `Token ${token}` };
  for (const path of ['/api/tenancy/../../metrics', '/api/tenancy/%2e%2e/%2e%2e/metrics', '/api/tenancy/..%2f..%2fmetrics', '/api/tenancy/metrics', '/api/tenancy/metrics/', '/api/metrics/']) {
    const r = await rawGet(stack.urls.gateway, path, auth);
    expect([path, r.status < 300, r.body.includes('inventory_http_requests_total')]).toEqual([path, false, false]);
  }
  const own = await scrapeMetrics(stack.urls.gateway);
  expect(own.samples.some((s) => s.labels.service === 'tenancy')).toBe(false);
  expect(own.value('inventory_http_requests_total', { route: '/metrics', method: 'GET', status_class: '2xx' })).toBeGreaterThan(0);
});
