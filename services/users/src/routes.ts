import type { Express, Request, Response } from 'express';
import { NotAuthenticated, PermissionDenied, ValidationError } from '@inventory/core';
import type { Identity } from '@inventory/auth';
import { sql, raw } from '@inventory/filtering';
import { awaitReaders, baseUrl, identityOf, insert, isPlainObject, mountRoute, notADict, prepare, runChange, type Row, type ServiceContext } from '@inventory/rest';
import { INVALID_CREDENTIALS, signIn } from './auth';
import { USER_CONFIG_TABLE, token } from './models';
import { signInAddress, type SignInThrottle } from './throttle';

/** DRF CharField(required) semantics for the provisioning credentials. */
function stringField(body: Record<string, unknown>, name: string, errors: Record<string, string[]>): string {
  if (!Object.prototype.hasOwnProperty.call(body, name)) errors[name] = ['This field is required.'];
  else {
    const v = body[name];
    if (v === null) errors[name] = ['This field may not be null.'];
    else if (typeof v === 'object') errors[name] = ['Not a valid string.'];
    else if (String(v) === '') errors[name] = ['This field may not be blank.'];
    else return String(v);
  }
  return '';
}

/** Fields of the new token a provisioning request may set (a supplied `key` is ignored). */
const PROVISION_FIELDS = ['expires', 'description', 'write_enabled', 'allowed_ips'];

/**
 * POST /api/users/tokens/provision/: a new token for valid credentials.
 * No permission is needed (the gateway forwards it with an anonymous identity).
 * Rate-limited per username and client address (X-Real-IP, set by the gateway).
 */
export function mountProvision(app: Express, ctx: ServiceContext, throttle: SignInThrottle): void {
  mountRoute(app, {
    path: `/api/${ctx.area}/tokens/provision/`,
    name: 'Token Provision',
    schemas: { TokenProvisionRequest: PROVISION_REQUEST },
    operations: {
      post: {
        handler: (req, res) => provision(ctx, throttle, req, res),
        summary: 'Non-authenticated REST API endpoint via which a user may create a Token.',
        request: { $ref: '#/components/schemas/TokenProvisionRequest' },
        status: 201,
        response: { $ref: '#/components/schemas/Token' },
      },
    },
  });
}

/** NetBox's TokenProvisionSerializer, as a request. */
const PROVISION_REQUEST = {
  type: 'object',
  properties: {
    username: { type: 'string', minLength: 1, writeOnly: true },
    password: { type: 'string', minLength: 1, writeOnly: true },
    expires: { type: 'string', format: 'date-time', nullable: true },
    description: { type: 'string', maxLength: 200 },
    write_enabled: { type: 'boolean' },
    allowed_ips: { type: 'array', items: { type: 'string' } },
  },
  required: ['username', 'password'],
};

async function provision(ctx: ServiceContext, throttle: SignInThrottle, req: Request, res: Response): Promise<void> {
  const body: unknown = req.body ?? {};
  if (!isPlainObject(body)) throw notADict(body);
  const errors: Record<string, string[]> = {};
  const username = stringField(body, 'username', errors);
  const password = stringField(body, 'password', errors);
  if (Object.keys(errors).length) throw new ValidationError(errors);

  const userRow = await signIn(ctx, throttle, username, password, signInAddress(req));
  if (!userRow) throw new PermissionDenied(INVALID_CREDENTIALS);

  const identity: Identity = {
    user: { id: Number(userRow.id), username: String(userRow.username), is_superuser: userRow.is_superuser === true, is_staff: userRow.is_staff === true, is_active: true },
    token: null,
    permissions: [],
  };
  const tokenBody: Row = { user: Number(userRow.id) };
  for (const k of PROVISION_FIELDS) if (Object.prototype.hasOwnProperty.call(body, k)) tokenBody[k] = body[k];
  // the same write path as any create: the token's change record and event are written with it
  const base = baseUrl(req, ctx.settings.publicUrl);
  const { applied, recorded } = await runChange(
    ctx,
    token,
    identity,
    async (wctx) => ({ touched: { created: [await insert(ctx, token, await prepare(ctx, token, tokenBody, 'create', null, wctx), wctx.tx)] } }),
    base,
  );
  await awaitReaders(ctx, res, recorded.events);
  const id = applied.touched.created[0];
  const rep = recorded.reps.get(id) as Row;
  // the key is always part of this answer
  rep.key = recorded.rows.get(id)?.key;
  res.status(201).json(rep);
}

/** Nested objects are merged key by key; anything else replaces. */
export function deepMerge(target: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...target };
  for (const [k, v] of Object.entries(patch)) {
    out[k] = isPlainObject(v) ? deepMerge(isPlainObject(out[k]) ? (out[k] as Record<string, unknown>) : {}, v) : v;
  }
  return out;
}

/** GET/PATCH /api/users/config/: the caller's preference tree. */
export function mountUserConfig(app: Express, ctx: ServiceContext): void {
  const table = raw(ctx.db.table(USER_CONFIG_TABLE));
  const userOf = (res: Response): number => {
    const identity = identityOf(res);
    if (!identity.user) throw new NotAuthenticated();
    return identity.user.id;
  };
  const tree = { type: 'object', additionalProperties: true };
  mountRoute(app, {
    path: `/api/${ctx.area}/config/`,
    name: 'User Config',
    operations: {
      get: {
        summary: "The caller's preferences (NetBox's UserConfig data).",
        response: tree,
        handler: async (_req, res) => {
          const [row] = await ctx.db.query(sql`SELECT data FROM ${table} WHERE user_id = ${userOf(res)}`);
          res.json((row?.data as Record<string, unknown> | undefined) ?? {});
        },
      },
      patch: {
        summary: "Merges the object into the caller's preferences; the merged tree.",
        request: tree,
        response: tree,
        handler: async (req, res) => {
          const userId = userOf(res);
          const body: unknown = req.body ?? {};
          if (!isPlainObject(body)) throw notADict(body);
          const data = await ctx.db.transaction(async (tx) => {
            await tx.query(sql`INSERT INTO ${table} (user_id, data) VALUES (${userId}, '{}'::jsonb) ON CONFLICT (user_id) DO NOTHING`);
            const [row] = await tx.query(sql`SELECT data FROM ${table} WHERE user_id = ${userId} FOR UPDATE`);
            const merged = deepMerge((row.data as Record<string, unknown>) ?? {}, body);
            await tx.query(sql`UPDATE ${table} SET data = ${JSON.stringify(merged)}::jsonb WHERE user_id = ${userId}`);
            return merged;
          });
          res.json(data);
        },
      },
    },
  });
}
