import { bootStack, type Stack } from '@inventory/testkit';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';

let stack: Stack;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy });
});
afterAll(() => stack?.stop());

test('when a tenant is created, then it is listed', async () => {
  const api = stack.client('tenancy');
  const g = await api.post('/api/tenancy/tenant-groups/', { name: 'G1', slug: 'g1' });
  expect(g.status).toBe(201);
  const t = await api.post('/api/tenancy/tenants/', { name: 'T1', slug: 't1', group: { slug: 'g1' } });
  expect(t.status).toBe(201);
  console.log(JSON.stringify(t.body, null, 1));
  const list = await api.get('/api/tenancy/tenants/');
  expect(list.body.count).toBe(1);
  const groups = await api.get('/api/tenancy/tenant-groups/');
  console.log(JSON.stringify(groups.body, null, 1));
});
