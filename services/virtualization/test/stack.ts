import { bootStack, type Client, type Stack } from '@inventory/testkit';
import { createService as virtualization } from '@inventory/virtualization';
import { createService as dcim } from '@inventory/dcim';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as users } from '@inventory/users';

export type Obj = Record<string, any>;

/** The services a virtualization stack runs: virtualization and what it references (dcim, tenancy, extras, users). */
export const bootVirtualization = () => bootStack({ extras, tenancy, users, dcim, virtualization }, {}, { template: true });

/**
 * virtualization with what it references, booted for the calling suite:
 * `api()` is virtualization's client, `made` POSTs a body that must be
 * created (to virtualization unless another client is given) and returns it.
 */
export function virtualizationSuite(): { stack: () => Stack; api: () => Client; made: (path: string, body: Obj | Obj[], client?: Client) => Promise<any> } {
  let stack: Stack;
  let api: Client;
  beforeAll(async () => {
    stack = await bootVirtualization();
    api = stack.client('virtualization');
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
