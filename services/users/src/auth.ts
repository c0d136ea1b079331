import { timingSafeEqual } from 'node:crypto';
import type { Express } from 'express';
import { PermissionDenied, ValidationError } from '@inventory/core';
import type { GrantedPermission, Identity, IdentityUser } from '@inventory/auth';
import { sql, raw } from '@inventory/filtering';
import { isoDateTime, type Row, type ServiceContext } from '@inventory/rest';
import { PERMISSION_GROUPS_TABLE, PERMISSION_USERS_TABLE, USER_GROUPS_TABLE } from './models';
import { checkPassword, dummyVerify, hashPassword } from './passwords';
import { ipAllowed, normaliseClientIp } from '@inventory/auth';
import { signInAddress, type SignInThrottle } from './throttle';

export const INVALID_CREDENTIALS = 'Invalid username/password';

const USER_COLUMNS = raw('id, username, password, is_superuser, is_staff, is_active');

function identityUser(row: Row): IdentityUser {
  return {
    id: Number(row.id),
    username: String(row.username),
    is_superuser: row.is_superuser === true,
    is_staff: row.is_staff === true,
    is_active: row.is_active === true,
  };
}

/** Every enabled ObjectPermission assigned to the user directly or through a group, in one query. */
export async function permissionsOf(ctx: ServiceContext, userId: number): Promise<GrantedPermission[]> {
  const rows = await ctx.db.query(sql`
    SELECT p.object_types, p.actions, p.constraints
    FROM ${raw(ctx.db.table('object_permission'))} p
    WHERE p.enabled AND (
      EXISTS (SELECT 1 FROM ${raw(ctx.db.table(PERMISSION_USERS_TABLE))} pu WHERE pu.owner_id = p.id AND pu.target_id = ${userId})
      OR EXISTS (
        SELECT 1 FROM ${raw(ctx.db.table(PERMISSION_GROUPS_TABLE))} pg
        JOIN ${raw(ctx.db.table(USER_GROUPS_TABLE))} ug ON ug.target_id = pg.target_id
        WHERE pg.owner_id = p.id AND ug.owner_id = ${userId}
      )
    )
    ORDER BY p.id`);
  return rows.map((r) => ({
    object_types: (r.object_types as string[] | null) ?? [],
    actions: (r.actions as string[] | null) ?? [],
    constraints: (r.constraints as GrantedPermission['constraints']) ?? null,
  }));
}

export async function identityFor(ctx: ServiceContext, userRow: Row, token: Identity['token']): Promise<Identity> {
  const user = identityUser(userRow);
  return { user, token, permissions: await permissionsOf(ctx, user.id) };
}

/**
 * The active user with these credentials, or null (same time spent for
 * unknown users). A password stored in an older format (scrypt, NetBox's
 * PBKDF2) or with weaker parameters is rehashed now that it is known.
 */
export async function checkCredentials(ctx: ServiceContext, username: string, password: string): Promise<Row | null> {
  const [row] = await ctx.db.query(sql`SELECT ${USER_COLUMNS} FROM ${raw(ctx.db.table('user'))} WHERE username = ${username}`);
  if (!row) {
    await dummyVerify(password);
    return null;
  }
  const stored = row.password as string | null;
  const check = await checkPassword(password, stored);
  if (!check.ok || row.is_active !== true) return null;
  if (check.rehash && stored) await rehash(ctx, Number(row.id), stored, password);
  return row;
}

/** Replaces the stored hash, unless the password changed meanwhile; a failure only delays the upgrade to the next sign-in. */
async function rehash(ctx: ServiceContext, userId: number, stored: string, password: string): Promise<void> {
  try {
    const fresh = await hashPassword(password);
    await ctx.db.query(sql`UPDATE ${raw(ctx.db.table('user'))} SET password = ${fresh} WHERE id = ${userId} AND password = ${stored}`);
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message, user_id: userId }, 'password rehash failed');
  }
}

/**
 * Rate-limited sign-in: 429 when the client address or the username is over
 * its limit (before the password is checked), else checkCredentials.
 */
export async function signIn(ctx: ServiceContext, throttle: SignInThrottle, username: string, password: string, address: string): Promise<Row | null> {
  const attempt = await throttle.begin(username, address);
  const row = await checkCredentials(ctx, username, password);
  if (row) await attempt.succeeded();
  return row;
}

const CLIENT_IP_UNKNOWN =
  'Client IP address could not be determined for validation. Check that the HTTP server is correctly configured to pass the required header(s).';

/**
 * What the gateway asks the users service to authenticate requests
 * (all under /internal/, which requires an internal identity).
 */
export function mountAuthInternal(app: Express, ctx: ServiceContext, throttle: SignInThrottle): void {
  const tokenTable = raw(ctx.db.table('token'));
  const userTable = raw(ctx.db.table('user'));

  // Authorization: Token <key> → the identity the gateway signs for the request
  app.post('/internal/auth/token', async (req, res) => {
    const key: unknown = req.body?.key;
    if (typeof key !== 'string' || key.length === 0) throw new PermissionDenied('Invalid token');
    const [row] = await ctx.db.query(sql`
      SELECT k.id, k.key, k.expires, k.write_enabled, k.allowed_ips,
             (k.expires IS NOT NULL AND now() >= k.expires) AS expired,
             u.id AS uid, u.username, u.is_superuser, u.is_staff, u.is_active
      FROM ${tokenTable} k JOIN ${userTable} u ON u.id = k.user_id
      WHERE k.key = ${key}`);
    const stored = Buffer.from(String(row?.key ?? ''), 'utf8');
    const given = Buffer.from(key, 'utf8');
    if (!row || stored.length !== given.length || !timingSafeEqual(stored, given)) throw new PermissionDenied('Invalid token');
    if (row.expired === true) throw new PermissionDenied('Token expired');
    if (row.is_active !== true) throw new PermissionDenied('User inactive');
    const allowed = (row.allowed_ips as string[] | null) ?? [];
    // optional: the gateway may pass the client address and let this service enforce allowed_ips
    if (allowed.length && req.body && Object.prototype.hasOwnProperty.call(req.body, 'client_ip')) {
      const clientIp: unknown = req.body.client_ip;
      const ip = typeof clientIp === 'string' && clientIp ? normaliseClientIp(clientIp) : null;
      if (!ip) throw new PermissionDenied(CLIENT_IP_UNKNOWN);
      if (!ipAllowed(ip, allowed)) throw new PermissionDenied(`Source IP ${ip} is not permitted to authenticate using this token.`);
    }
    // at most one write a minute per token
    await ctx.db.query(
      sql`UPDATE ${tokenTable} SET last_used = now() WHERE id = ${row.id} AND (last_used IS NULL OR last_used < now() - interval '60 seconds')`,
    );
    const identity = await identityFor(ctx, { ...row, id: row.uid }, { id: Number(row.id), write_enabled: row.write_enabled === true });
    res.json({ identity, token: { id: Number(row.id), expires: isoDateTime(row.expires), allowed_ips: allowed } });
  });

  // browser login (the gateway passes the client's address in client_ip, for the rate limits)
  app.post('/internal/auth/password', async (req, res) => {
    const { username, password, client_ip: clientIp } = (req.body ?? {}) as Record<string, unknown>;
    if (typeof username !== 'string' || typeof password !== 'string' || !username || !password) throw new PermissionDenied(INVALID_CREDENTIALS);
    const row = await signIn(ctx, throttle, username, password, signInAddress(req, clientIp));
    if (!row) throw new PermissionDenied(INVALID_CREDENTIALS);
    await ctx.db.query(sql`UPDATE ${userTable} SET last_login = now() WHERE id = ${row.id}`);
    res.json({ identity: await identityFor(ctx, row, null) });
  });

  // browser session: the user behind a session cookie
  app.post('/internal/auth/session-user', async (req, res) => {
    const value: unknown = req.body?.user_id;
    const id = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(id)) throw new ValidationError({ user_id: ['A valid integer is required.'] });
    const [row] = await ctx.db.query(sql`SELECT ${USER_COLUMNS} FROM ${userTable} WHERE id = ${id}`);
    if (!row) throw new PermissionDenied('User not found');
    if (row.is_active !== true) throw new PermissionDenied('User inactive');
    res.json({ identity: await identityFor(ctx, row, null) });
  });
}
