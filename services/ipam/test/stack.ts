import { bootStack, type Client, type Stack } from '@inventory/testkit';
import { createService as ipam } from '@inventory/ipam';
import { createService as dcim } from '@inventory/dcim';
import { createService as virtualization } from '@inventory/virtualization';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as users } from '@inventory/users';

export type Obj = Record<string, any>;

/**
 * ipam with what it references (extras, tenancy, users, dcim), booted
 * for the calling suite: `api()` is ipam' client, `made` POSTs a body
 * that must be created (to ipam unless another client is given) and
 * returns it.
 */
export function ipamSuite(overrides: Obj = {}): { stack: () => Stack; api: () => Client; made: (path: string, body: Obj | Obj[], client?: Client) => Promise<any> } {
  let stack: Stack;
  let api: Client;
  beforeAll(async () => {
    stack = await bootStack({ extras, tenancy, users, dcim, ipam: (config) => ipam({ ...config, ...overrides }) }, {}, { template: true });
    api = stack.client('ipam');
  });
  afterAll(() => stack?.stop());
  return {
    stack: () => stack,
    api: () => api,
    async made(path, body, client = api) {
      const r = await client.post(path, body);
      if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
      return r.body;
    },
  };
}

/** ipam with dcim and virtualization (whose interfaces its addresses are assigned to), booted for the calling suite. */
export function addressingSuite(overrides: Obj = {}): { stack: () => Stack; api: () => Client; made: (path: string, body: Obj | Obj[], client?: Client) => Promise<any> } {
  let stack: Stack;
  let api: Client;
  beforeAll(async () => {
    stack = await bootStack({ extras, tenancy, users, dcim, virtualization, ipam: (config) => ipam({ ...config, ...overrides }) }, {}, { template: true });
    api = stack.client('ipam');
  });
  afterAll(() => stack?.stop());
  return {
    stack: () => stack,
    api: () => api,
    async made(path, body, client = api) {
      const r = await client.post(path, body);
      if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
      return r.body;
    },
  };
}
