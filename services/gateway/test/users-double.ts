/**
 * TEST DOUBLE of the users service: a tiny real HTTP server that implements
 * only what the gateway calls (`POST /internal/auth/token`, readiness,
 * `/internal/openapi`) plus two /api/users/ paths that echo what the gateway
 * forwarded. It verifies the gateway's x-identity header exactly as a real
 * service does (signed for `users`; /internal/ for a service identity only).
 * The real users service is written elsewhere.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { IDENTITY_HEADER, verifyIdentity, type GrantedPermission, type Identity, type IdentityUser } from '@inventory/auth';

export interface DoubleToken {
  id: number;
  key: string;
  user: IdentityUser;
  write_enabled: boolean;
  /** ISO datetime or null. */
  expires: string | null;
  permissions?: GrantedPermission[];
}

export interface UsersDouble {
  url: string;
  /** Tokens by key; tests add, change and delete entries (a deleted entry = a revoked token). */
  tokens: Map<string, DoubleToken>;
  /** Verification calls received (to observe the gateway's cache). */
  verifications: number;
  /** Bodies of verification calls, as received. */
  verifyBodies: Record<string, unknown>[];
  stop(): Promise<void>;
}

export async function startUsersDouble(secret: string): Promise<UsersDouble> {
  const state = { verifications: 0, verifyBodies: [] as Record<string, unknown>[] };
  const tokens = new Map<string, DoubleToken>();

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/readyz' || path === '/healthz') return send(res, 200, { status: 'ready' });

      let identity: Identity;
      try {
        identity = verifyIdentity(secret, req.headers[IDENTITY_HEADER] as string | undefined, 'users');
      } catch (err) {
        return send(res, 403, { detail: (err as Error).message });
      }
      if (!identity.service && !path.startsWith('/api/')) return send(res, 403, { detail: 'Internal endpoints accept only a service identity.' });

      if (req.method === 'POST' && path === '/internal/auth/token') {
        state.verifications++;
        const body = JSON.parse(raw || '{}') as { key?: string };
        state.verifyBodies.push(body);
        const t = tokens.get(String(body.key));
        if (!t) return send(res, 403, { detail: 'Invalid token' });
        if (t.expires && Date.now() >= Date.parse(t.expires)) return send(res, 403, { detail: 'Token expired' });
        if (!t.user.is_active) return send(res, 403, { detail: 'User inactive' });
        return send(res, 200, {
          identity: { user: t.user, token: { id: t.id, write_enabled: t.write_enabled }, permissions: t.permissions ?? [] },
          token: { id: t.id, expires: t.expires },
        });
      }
      if (req.method === 'GET' && path === '/internal/openapi') return send(res, 200, { paths: {}, components: { schemas: {} } });

      // what the gateway forwarded, for the tests to inspect
      const seen = {
        method: req.method,
        url: req.url,
        identity,
        headers: req.headers,
        body: raw,
      };
      if (req.method === 'POST' && path === '/api/users/tokens/provision/') {
        return send(res, 201, { id: 99, key: 'f'.repeat(40), write_enabled: true, seen });
      }
      if (path === '/api/users/echo/') return send(res, 200, seen);
      return send(res, 404, { detail: 'Not found.' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const double: UsersDouble = {
    url: `http://127.0.0.1:${port}`,
    tokens,
    get verifications() {
      return state.verifications;
    },
    get verifyBodies() {
      return state.verifyBodies;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return double;
}
