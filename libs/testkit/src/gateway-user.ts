import { Client, type Reply } from './http';
import type { Stack } from './stack';

/** What a permission grants: NetBox's object types and actions, optionally constrained. */
export interface Grant {
  object_types: string[];
  actions?: string[];
  constraints?: Record<string, unknown> | Record<string, unknown>[];
}

export interface GatewayUser {
  /** A client of the gateway sending the user's token (no minted identity: the gateway authenticates it). */
  client: Client;
  /** The token's key. */
  key: string;
  /** The user's id. */
  id: number;
}

const ALL = ['view', 'add', 'change', 'delete'];

function ok(r: Reply, what: string): Reply {
  if (r.status !== 201) throw new Error(`${what}: expected 201, got ${r.status}: ${r.text.slice(0, 500)}`);
  return r;
}

/**
 * A user made in the stack's users service with the given permissions
 * (every action unless named), and a client of the stack's gateway with a
 * token provisioned for it, as a NetBox user signs in: what a test through
 * the gateway starts from. `by` makes the user and its permissions (the
 * users service with a superuser identity by default).
 */
export async function gatewayUser(stack: Stack, username: string, grants: Grant[], by: Client = stack.client('users')): Promise<GatewayUser> {
  const password = `${username}-password-1`;
  const user = ok(await by.post('/api/users/users/', { username, password }), `user ${username}`).body;
  for (const [i, g] of grants.entries()) {
    ok(await by.post('/api/users/permissions/', { name: `${username} ${i + 1}`, actions: ALL, ...g, users: [user.id] }), `permission ${i + 1} of ${username}`);
  }
  const anonymous = new Client(stack.urls.gateway, { identity: null });
  const key = ok(await anonymous.post('/api/users/tokens/provision/', { username, password }), `token of ${username}`).body.key as string;
  return { client: new Client(stack.urls.gateway, { identity: null, headers: { authorization: `Token ${key}` } }), key, id: user.id };
}
