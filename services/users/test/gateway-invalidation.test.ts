import type { IncomingMessage, ServerResponse } from 'node:http';
import { IDENTITY_HEADER, verifyIdentity } from '@inventory/auth';
import { listen, type RunningServer } from '@inventory/core';
import { TEST_SECRET, bootStack, type Client, type Stack } from '@inventory/testkit';
import { createService } from '@inventory/users';
import { createUser } from './helpers';

/** Stands in for the gateway: records what arrives at /internal/auth/invalidate (the caller's service claim, if signed for the gateway). */
const calls: { path: string; service: string | undefined; body: unknown }[] = [];
function fakeGateway() {
  let server: RunningServer | null = null;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      let service: string | undefined;
      try {
        service = verifyIdentity(TEST_SECRET, req.headers[IDENTITY_HEADER] as string | undefined, 'gateway').service;
      } catch {
        service = undefined;
      }
      calls.push({ path: req.url ?? '', service, body: text ? JSON.parse(text) : undefined });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ dropped: 0 }));
    });
  };
  return {
    async start(port?: number) {
      server = await listen(handler, port ?? 0);
      return server;
    },
    async stop() {
      await server?.close();
    },
  };
}

let stack: Stack;
let api: Client;
beforeAll(async () => {
  stack = await bootStack({ users: createService, gateway: fakeGateway });
  api = stack.client('users');
});
afterAll(() => stack?.stop());

describe('gateway cache invalidation', () => {
  test('when a token is deleted, then the gateway is told to drop its cached verifications', async () => {
    const u = await createUser(api, 'cached');
    const t = await api.post('/api/users/tokens/', { user: u.id });
    calls.length = 0;
    expect((await api.delete(`/api/users/tokens/${t.body.id}/`)).status).toBe(204);
    expect(calls).toEqual([{ path: '/internal/auth/invalidate', service: 'users', body: {} }]);
  });

  test('when permissions, groups or users change, then the gateway is told as well', async () => {
    const g = await api.post('/api/users/groups/', { name: 'g' });
    const p = await api.post('/api/users/permissions/', { name: 'p', object_types: ['dcim.site'], actions: ['view'], groups: [g.body.id] });
    calls.length = 0;
    await api.patch(`/api/users/permissions/${p.body.id}/`, { enabled: false });
    await api.delete(`/api/users/groups/${g.body.id}/`);
    const u = await createUser(api, 'someone');
    await api.patch(`/api/users/users/${u.id}/`, { is_active: false });
    expect(calls).toHaveLength(4);
    expect(calls.every((c) => c.path === '/internal/auth/invalidate' && c.service === 'users')).toBe(true);
  });

  test('when a write is rejected, then the gateway is not called', async () => {
    calls.length = 0;
    expect((await api.post('/api/users/tokens/', { user: 999999 })).status).toBe(400);
    expect(calls).toHaveLength(0);
  });
});
