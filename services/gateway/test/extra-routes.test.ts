import { bootStack, Client, type Stack } from '@inventory/testkit';
import { createService as users } from '@inventory/users';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as dcim } from '@inventory/dcim';
import { createService as ipam } from '@inventory/ipam';
import { createService as circuits } from '@inventory/circuits';
import { createService as virtualization } from '@inventory/virtualization';
import { createService as extras } from '@inventory/extras';
import { createService as webhooks } from '@inventory/webhooks';
import { stackGateway } from '@inventory/gateway';
import * as fs from 'node:fs';
import { validateOpenApi } from './validate-openapi';
import { FACTS_FILE, OpenApiView, SHARED_FACTS_FILE, gaps, readFacts } from './parity-drift';

/**
 * The routes beyond the model routes (NetBox's extra actions and views) are
 * in the merged OpenAPI document with their methods, as NetBox's schema
 * lists them, and any other method is DRF's 405 naming the route's methods.
 */
type Json = Record<string, any>;

/** Every extra route of NetBox 3.7 this API serves, and ours beside them, with their methods. */
const EXTRA_ROUTES: Record<string, string[]> = {
  '/api/ipam/prefixes/{id}/available-ips/': ['get', 'post'],
  '/api/ipam/prefixes/{id}/available-prefixes/': ['get', 'post'],
  '/api/ipam/ip-ranges/{id}/available-ips/': ['get', 'post'],
  '/api/ipam/vlan-groups/{id}/available-vlans/': ['get', 'post'],
  '/api/ipam/asn-ranges/{id}/available-asns/': ['get', 'post'],
  '/api/dcim/console-ports/{id}/trace/': ['get'],
  '/api/dcim/console-server-ports/{id}/trace/': ['get'],
  '/api/dcim/power-ports/{id}/trace/': ['get'],
  '/api/dcim/power-outlets/{id}/trace/': ['get'],
  '/api/dcim/interfaces/{id}/trace/': ['get'],
  '/api/dcim/power-feeds/{id}/trace/': ['get'],
  '/api/dcim/front-ports/{id}/paths/': ['get'],
  '/api/dcim/rear-ports/{id}/paths/': ['get'],
  '/api/circuits/circuit-terminations/{id}/paths/': ['get'],
  '/api/dcim/racks/{id}/elevation/': ['get'],
  '/api/dcim/connected-device/': ['get'],
  '/api/dcim/devices/{id}/render-config/': ['post'],
  '/api/virtualization/virtual-machines/{id}/render-config/': ['post'],
  '/api/extras/config-templates/{id}/render/': ['post'],
  '/api/extras/custom-field-choice-sets/{id}/choices/': ['get'],
  '/api/extras/content-types/': ['get'],
  '/api/extras/content-types/{id}/': ['get'],
  '/api/extras/webhook-deliveries/retry/': ['post'],
  '/api/extras/webhook-deliveries/{id}/retry/': ['post'],
  '/api/users/tokens/provision/': ['post'],
  '/api/users/config/': ['get', 'patch'],
  '/api/extras/dashboard/': ['get', 'put', 'patch', 'delete'],
  // NetBox 3.7's sync actions (DataSourceViewSet.sync, SyncedDataMixin)
  '/api/core/data-sources/{id}/sync/': ['post'],
  '/api/extras/export-templates/{id}/sync/': ['post'],
  '/api/extras/config-contexts/{id}/sync/': ['post'],
  '/api/extras/config-templates/{id}/sync/': ['post'],
};
const VERBS = ['get', 'post', 'put', 'patch', 'delete'];

let stack: Stack;
let gw: Client;
let doc: Json;

beforeAll(async () => {
  stack = await bootStack({ users, tenancy, dcim, ipam, circuits, virtualization, extras, webhooks, gateway: stackGateway() }, {}, { template: true });
  const user = await stack.client('users').post('/api/users/users/', { username: 'routes', password: 'routes-password-1' });
  const key = (await stack.client('users').post('/api/users/tokens/', { user: user.body.id })).body.key;
  gw = new Client(stack.urls.gateway, { identity: null, headers: { authorization: `Token ${key}` } });
  doc = (await gw.get('/api/schema/', { headers: { accept: 'application/json' } })).body;
});
afterAll(() => stack?.stop());

/** Every `$ref` under a node. */
function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refs(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

describe('the OpenAPI document', () => {
  test('when every service is merged with its own routes, then the document is valid OpenAPI 3.0.3', async () => {
    expect(await validateOpenApi(doc)).toEqual({ valid: true });
  });

  test.each(Object.entries(EXTRA_ROUTES))('when %s is documented, then it has exactly its methods, each with an operation id and a success answer', (path, methods) => {
    const item = doc.paths[path];
    expect(item).toBeDefined();
    expect(VERBS.filter((v) => item[v])).toEqual(methods);
    for (const verb of methods) {
      const op = item[verb];
      expect(op.operationId).toMatch(/^[a-z_]+$/);
      expect(Object.keys(op.responses).some((s) => /^2/.test(s))).toBe(true);
      if (path.includes('{id}')) expect(op.parameters.find((p: Json) => p.in === 'path')).toMatchObject({ name: 'id', required: true, schema: { type: 'integer' } });
    }
  });

  test('when the extra routes refer to component schemas, then every one is in the document, and no operation id is used twice', () => {
    const missing = refs(Object.keys(EXTRA_ROUTES).map((p) => doc.paths[p]))
      .map((r) => r.replace('#/components/schemas/', ''))
      .filter((name) => !doc.components.schemas[name]);
    expect(missing).toEqual([]);
    const ids = Object.values(doc.paths).flatMap((item: any) => VERBS.filter((v) => item[v]).map((v) => item[v].operationId));
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  test('when an allocation endpoint is documented, then GET lists its free values and POST takes and answers one object or a list', () => {
    const item = doc.paths['/api/ipam/prefixes/{id}/available-ips/'];
    expect(item.get.operationId).toBe('ipam_prefixes_available_ips_list');
    expect(item.get.responses['200'].content['application/json'].schema).toEqual({ type: 'array', items: { $ref: '#/components/schemas/AvailableIP' } });
    expect(item.post.requestBody.content['application/json'].schema.oneOf).toContainEqual({ $ref: '#/components/schemas/IPAddressRequest' });
    expect(item.post.responses['201'].content['application/json'].schema.oneOf).toContainEqual({ type: 'array', items: { $ref: '#/components/schemas/IPAddress' } });
    expect(doc.paths['/api/dcim/devices/{id}/render-config/'].post.responses['200'].content).toHaveProperty(['text/plain']);
  });
});

describe('methods a route does not take', () => {
  test.each([
    ['GET', '/api/dcim/devices/999999/render-config/', 'POST, OPTIONS'],
    ['GET', '/api/virtualization/virtual-machines/999999/render-config/', 'POST, OPTIONS'],
    ['GET', '/api/extras/config-templates/999999/render/', 'POST, OPTIONS'],
    ['POST', '/api/dcim/interfaces/999999/trace/', 'GET, HEAD, OPTIONS'],
    ['DELETE', '/api/dcim/racks/999999/elevation/', 'GET, HEAD, OPTIONS'],
    ['PUT', '/api/ipam/prefixes/999999/available-ips/', 'GET, POST, HEAD, OPTIONS'],
    ['PATCH', '/api/ipam/vlan-groups/999999/available-vlans/', 'GET, POST, HEAD, OPTIONS'],
    ['POST', '/api/circuits/circuit-terminations/999999/paths/', 'GET, HEAD, OPTIONS'],
    ['PUT', '/api/extras/custom-field-choice-sets/999999/choices/', 'GET, HEAD, OPTIONS'],
    ['GET', '/api/users/tokens/provision/', 'POST, OPTIONS'],
    ['GET', '/api/core/data-sources/999999/sync/', 'POST, OPTIONS'],
    ['PUT', '/api/extras/config-contexts/999999/sync/', 'POST, OPTIONS'],
  ])('when %s %s is sent, then 405 in DRF words with Allow: %s, before the object is looked up', async (method, path, allow) => {
    const res = await gw.request(method, path, method === 'GET' ? {} : { body: {} });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: `Method "${method}" not allowed.` });
    expect(res.headers.get('allow')).toBe(allow);
  });

  test('when OPTIONS is sent to an extra route, then it names the view and Allow lists its methods', async () => {
    const res = await gw.request('OPTIONS', '/api/dcim/devices/999999/render-config/');
    expect(res.status).toBe(200);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    expect(res.body).toMatchObject({ name: 'Render Config', renders: ['application/json', 'text/html'] });
  });
});

/**
 * What NetBox 3.7.8 has on an endpoint that we do not, on purpose. Each entry
 * says why; an entry that no longer differs fails the test, so the list
 * only ever shrinks honestly.
 */
const PARITY_EXCEPTIONS: Record<string, Record<string, string>> = {
  '/api/extras/webhooks/': {
    // webhook secrets are write-only here (a standard of the team): never in an answer, and not a filter either
    'field:secret': 'write-only',
    'filter:secret': 'write-only: filtering by it would reveal it a character at a time',
  },
};

describe('NetBox 3.7.8 parity of the declared models (the facts in netbox-3.7.8.json)', () => {
  test('when the facts are the team\'s shared copy too, then they are the same file', () => {
    // the copy beside the test is what CI reads; the shared one (beside the repository, when present) is where they are refreshed
    if (fs.existsSync(SHARED_FACTS_FILE)) expect(fs.readFileSync(FACTS_FILE, 'utf8')).toBe(fs.readFileSync(SHARED_FACTS_FILE, 'utf8'));
    expect(Object.keys(readFacts()).length).toBeGreaterThanOrEqual(140);
  });

  test('when an endpoint we serve is compared with NetBox 3.7.8, then it has every field, brief field, filter and lookup, save the exceptions', () => {
    const api = new OpenApiView(doc);
    const missing: Record<string, string[]> = {};
    const stale: string[] = [];
    for (const facts of Object.values(readFacts())) {
      if (facts.extra || !api.has(facts.path)) continue;
      // connected-device answers one device, never a brief list (brief_supported: false): its fields are a device's
      if (facts.brief_supported === false) facts.brief = undefined;
      const except = PARITY_EXCEPTIONS[facts.path] ?? {};
      const found = gaps(api, facts);
      const unexplained = found.filter((g) => !(g in except));
      if (unexplained.length) missing[facts.path] = unexplained;
      for (const g of Object.keys(except)) if (!found.includes(g)) stale.push(`${facts.path} ${g}`);
    }
    expect({ missing, stale }).toEqual({ missing: {}, stale: [] });
  });
});

describe('the core area (NetBox 3.7, served by extras: decision 028)', () => {
  test('when /api/core/ and its lists are read through the gateway, then extras answers them, and the document lists their paths', async () => {
    // a user who may view the core models (an object permission naming their content types)
    const viewer = await stack.client('users').post('/api/users/users/', { username: 'core-viewer', password: 'core-password-1' });
    const granted = await stack.client('users').post('/api/users/permissions/', { name: 'view core', object_types: ['core.datasource', 'core.datafile', 'core.job'], actions: ['view'], users: [viewer.body.id] });
    expect(granted.status).toBe(201);
    const key = (await stack.client('users').post('/api/users/tokens/', { user: viewer.body.id })).body.key;
    const gw = new Client(stack.urls.gateway, { identity: null, headers: { authorization: `Token ${key}` } });
    const root = await gw.get('/api/core/');
    expect(root.status).toBe(200);
    expect(Object.keys(root.body)).toEqual(['data-files', 'data-sources', 'jobs']);
    for (const endpoint of ['data-sources', 'data-files', 'jobs']) {
      const list = await gw.get(`/api/core/${endpoint}/`);
      expect([endpoint, list.status, list.body.count]).toEqual([endpoint, 200, 0]);
      expect(doc.paths[`/api/core/${endpoint}/`]).toBeDefined();
    }
    expect((await gw.get('/api/')).body).toHaveProperty('core');
  });
});

describe('the dashboard (NetBox 3.7\'s /api/extras/dashboard/, kept by users)', () => {
  test('when a user saves, changes and deletes their dashboard through the gateway, then each read shows their own, and nobody else\'s', async () => {
    expect((await gw.get('/api/extras/dashboard/')).body).toEqual({ layout: [], config: {} });
    const layout = [{ id: 'a1', x: 0, y: 0, w: 4, h: 3 }];
    const config = { a1: { class: 'extras.NoteWidget', title: 'Hello', config: { content: 'hi' } } };
    expect((await gw.patch('/api/extras/dashboard/', { layout })).body).toEqual({ layout, config: {} });
    expect((await gw.patch('/api/extras/dashboard/', { config })).body).toEqual({ layout, config });
    expect((await gw.get('/api/extras/dashboard/')).body).toEqual({ layout, config });
    // another user's is their own
    const other = await stack.client('users').post('/api/users/users/', { username: 'dash-other', password: 'dash-password-1' });
    const key = (await stack.client('users').post('/api/users/tokens/', { user: other.body.id })).body.key;
    const otherGw = new Client(stack.urls.gateway, { identity: null, headers: { authorization: `Token ${key}` } });
    expect((await otherGw.get('/api/extras/dashboard/')).body).toEqual({ layout: [], config: {} });
    expect((await otherGw.put('/api/extras/dashboard/', 'not an object')).status).toBe(400);
    expect((await gw.delete('/api/extras/dashboard/')).status).toBe(204);
    expect((await gw.get('/api/extras/dashboard/')).body).toEqual({ layout: [], config: {} });
    expect((await new Client(stack.urls.gateway, { identity: null }).get('/api/extras/dashboard/')).status).toBe(403);
  });
});
