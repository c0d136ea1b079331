import { bootStack, Client, type Stack } from '@inventory/testkit';
import type { RestService } from '@inventory/rest';
import { createService as virtualization } from '@inventory/virtualization';
import { createService as dcim } from '@inventory/dcim';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { bootstrapAdmin, createService as users } from '@inventory/users';
import { stackGateway } from '@inventory/gateway';

/**
 * virtualization behind the gateway, as a NetBox client meets it: a
 * superuser's token (made by the users service's own bootstrap), the
 * `virtualization` area routed to the virtualization service, and the service
 * in status and schema.
 */
const KEY = '76543210fedcba9876543210fedcba9876543210';
let stack: Stack;
let gw: Client;
let usersService: RestService;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, users: (c) => (usersService = users(c)), dcim, virtualization, gateway: stackGateway() }, {}, { template: true });
  await bootstrapAdmin(usersService, { SUPERUSER_NAME: 'admin', SUPERUSER_PASSWORD: 'admin-password-1', SUPERUSER_API_TOKEN: KEY });
  gw = new Client(stack.urls.gateway, { identity: null, headers: { authorization: `Token ${KEY}` } });
});
afterAll(() => stack?.stop());

test('when a client uses the gateway, then /api/virtualization/ and its endpoints answer from the virtualization service', async () => {
  const root = await gw.get('/api/virtualization/');
  expect(root.status).toBe(200);
  expect(Object.keys(root.body)).toEqual(['cluster-groups', 'cluster-types', 'clusters', 'interfaces', 'virtual-disks', 'virtual-machines']);
  expect(root.body.interfaces).toBe(`${stack.urls.gateway}/api/virtualization/interfaces/`);
  const site = await gw.post('/api/dcim/sites/', { name: 'Gateway site', slug: 'gateway-site' });
  const type = await gw.post('/api/virtualization/cluster-types/', { name: 'Gateway type', slug: 'gateway-type' });
  const cluster = await gw.post('/api/virtualization/clusters/', { name: 'Gateway cluster', type: { slug: 'gateway-type' }, site: site.body.id });
  expect(cluster.status).toBe(201);
  expect(type.body.url).toBe(`${stack.urls.gateway}/api/virtualization/cluster-types/${type.body.id}/`);
  const vm = await gw.post('/api/virtualization/virtual-machines/', { name: 'gateway-vm', cluster: { name: 'Gateway cluster' } });
  expect(vm.status).toBe(201);
  expect(vm.body.site.url).toBe(`${stack.urls.gateway}/api/dcim/sites/${site.body.id}/`);
  const eth = await gw.post('/api/virtualization/interfaces/', { virtual_machine: vm.body.id, name: 'eth0' });
  expect(eth.status).toBe(201);
  expect(eth.body.virtual_machine).toEqual({ id: vm.body.id, url: vm.body.url, display: 'gateway-vm', name: 'gateway-vm' });
  const list = await gw.get('/api/virtualization/interfaces/?cluster=Gateway cluster');
  expect(list.body.count).toBe(1);
  const anonymous = await new Client(stack.urls.gateway, { identity: null }).get('/api/virtualization/virtual-machines/');
  expect(anonymous.status).toBe(403);
});

test('when status, the API root and the schemas are read, then virtualization is among the services', async () => {
  const status = await gw.get('/api/status/');
  expect(status.body.services.virtualization).toBe('ok');
  expect((await gw.get('/api/')).body.virtualization).toBe(`${stack.urls.gateway}/api/virtualization/`);
  const schema = await gw.get('/api/schema/', { headers: { accept: 'application/json' } });
  for (const p of ['/api/virtualization/virtual-machines/', '/api/virtualization/interfaces/{id}/', '/api/virtualization/virtual-disks/']) expect(schema.body.paths[p]).toBeDefined();
  // NetBox's component names: a VM interface is VMInterface (dcim's interfaces are Interface)
  for (const name of ['VirtualMachine', 'VMInterface', 'BriefVMInterface', 'VirtualDisk', 'Cluster']) expect(schema.body.components.schemas[name]).toBeDefined();
  const events = await gw.get('/api/schema/events/', { headers: { accept: 'application/json' } });
  expect(JSON.stringify(events.body)).toContain('virtualization.vminterface.created');
});
