import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { IDENTITY_HEADER, verifyIdentity } from '@inventory/auth';
import { ServiceClient } from '@inventory/refs';

const SECRET = 'refs-test-secret-0123456789abcdef';

/** A service that records the identity header of each call and answers `{}`. */
async function recorder(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(String(req.headers[IDENTITY_HEADER]));
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('service client identity', () => {
  test('when a service calls two others, then each gets a token for itself only, with the caller as service, reused between calls', async () => {
    const [extras, users] = await Promise.all([recorder(), recorder()]);
    try {
      const client = new ServiceClient('tenancy', { extras: extras.url, users: users.url }, SECRET);
      await client.call('extras', 'POST', '/internal/tags/by-slug', { slugs: [] });
      await client.call('users', 'GET', '/internal/openapi');
      await client.call('extras', 'GET', '/internal/custom-fields');
      const [toExtras, again] = extras.seen;
      const [toUsers] = users.seen;
      expect(again).toBe(toExtras);
      expect(toUsers).not.toBe(toExtras);
      expect(verifyIdentity(SECRET, toExtras, 'extras').service).toBe('tenancy');
      expect(verifyIdentity(SECRET, toUsers, 'users').service).toBe('tenancy');
      expect(() => verifyIdentity(SECRET, toExtras, 'users')).toThrow('Invalid identity token.');
      expect(() => verifyIdentity(SECRET, toUsers, 'extras')).toThrow('Invalid identity token.');
    } finally {
      await Promise.all([extras.close(), users.close()]);
    }
  });
});
