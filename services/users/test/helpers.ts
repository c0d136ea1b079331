import pg from 'pg';
import type { GrantedPermission, Identity } from '@inventory/auth';
import type { Client, Stack } from '@inventory/testkit';

export const PASSWORD = 'Correct-Horse-9';

export interface UserRef {
  id: number;
  username: string;
}

export async function createUser(api: Client, username: string, extra: Record<string, unknown> = {}): Promise<UserRef & Record<string, unknown>> {
  const res = await api.post('/api/users/users/', { username, password: PASSWORD, ...extra });
  if (res.status !== 201) throw new Error(`user ${username}: ${res.status} ${res.text}`);
  return res.body;
}

/** The identity the gateway would mint for a regular (non-superuser) account. */
export function regular(user: UserRef, permissions: GrantedPermission[] = [], writeEnabled = true): Identity {
  return {
    user: { id: user.id, username: user.username, is_superuser: false, is_staff: false, is_active: true },
    token: { id: 999, write_enabled: writeEnabled },
    permissions,
  };
}

export const anonymous: Identity = { user: null, token: null, permissions: [] };

/** Reads a row of the users schema directly. */
export async function dbRow(stack: Stack, statement: string, params: unknown[] = []): Promise<Record<string, unknown> | undefined> {
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    const res = await client.query(statement, params);
    return res.rows[0];
  } finally {
    await client.end();
  }
}
