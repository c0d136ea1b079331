import { bootStack, Client, type Stack } from '@inventory/testkit';
import type { RestService } from '@inventory/rest';
import { createService as circuits } from '@inventory/circuits';
import { createService as dcim } from '@inventory/dcim';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { bootstrapAdmin, createService as users } from '@inventory/users';
import { stackGateway } from '@inventory/gateway';

/**
 * circuits behind the gateway, as a NetBox client meets it: a superuser's
 * token (made by the users service's own bootstrap), the `circuits` area
 * routed to the circuits service, and the service in status and schema.
 */
const KEY = '0123456789abcdef0123456789abcdef01234567';
let stack: Stack;
let gw: Client;
let usersService: RestService;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, users: (c) => (usersService = users(c)), dcim, circuits, gateway: stackGateway() }, {}, { template: true });
  await bootstrapAdmin(usersService, { SUPERUSER_NAME: 'admin', SUPERUSER_PASSWORD: 'admin-password-1', SUPERUSER_API_TOKEN: KEY });
  gw = new Client(stack.urls.gateway, { identity: null, headers: { authorization: `Token ${KEY}` } });
});
afterAll(() => stack?.stop());

test('when a client uses the gateway, then /api/circuits/ and its endpoints answer from the circuits service', async () => {
  const root = await gw.get('/api/circuits/');
  expect(root.status).toBe(200);
  expect(root.body.providers).toBe(`${stack.urls.gateway}/api/circuits/providers/`);
  const provider = await gw.post('/api/circuits/providers/', { name: 'Gateway provider', slug: 'gateway-provider' });
  expect(provider.status).toBe(201);
  expect(provider.body.url).toBe(`${stack.urls.gateway}/api/circuits/providers/${provider.body.id}/`);
  const type = await gw.post('/api/circuits/circuit-types/', { name: 'Gateway type', slug: 'gateway-type' });
  const site = await gw.post('/api/dcim/sites/', { name: 'Gateway site', slug: 'gateway-site' });
  const circuit = await gw.post('/api/circuits/circuits/', { cid: 'GW-1', provider: { slug: 'gateway-provider' }, type: type.body.id });
  expect(circuit.status).toBe(201);
  const end = await gw.post('/api/circuits/circuit-terminations/', { circuit: circuit.body.id, term_side: 'A', site: site.body.id });
  expect(end.status).toBe(201);
  const list = await gw.get('/api/circuits/circuits/?site=gateway-site');
  expect(list.body.count).toBe(1);
  expect(list.body.results[0].termination_a).toMatchObject({ id: end.body.id, url: `${stack.urls.gateway}/api/circuits/circuit-terminations/${end.body.id}/` });
  expect(list.body.results[0].termination_a.site.url).toBe(`${stack.urls.gateway}/api/dcim/sites/${site.body.id}/`);
  const anonymous = await new Client(stack.urls.gateway, { identity: null }).get('/api/circuits/providers/');
  expect(anonymous.status).toBe(403);
});

test('when status, the API root and the schemas are read, then circuits is among the services', async () => {
  const status = await gw.get('/api/status/');
  expect(status.body.services.circuits).toBe('ok');
  expect((await gw.get('/api/')).body.circuits).toBe(`${stack.urls.gateway}/api/circuits/`);
  const schema = await gw.get('/api/schema/', { headers: { accept: 'application/json' } });
  for (const p of ['/api/circuits/providers/', '/api/circuits/circuits/{id}/', '/api/circuits/circuit-terminations/']) expect(schema.body.paths[p]).toBeDefined();
  const events = await gw.get('/api/schema/events/', { headers: { accept: 'application/json' } });
  expect(JSON.stringify(events.body)).toContain('circuits.circuittermination.created');
});
