import { sql, raw } from '@inventory/filtering';
import { serviceIdentity } from '@inventory/auth';
import { hashKey, noteTouched, runChange, type RestService, type Touched } from '@inventory/rest';
import { generateKey, token, TOKEN_KEY_LENGTH, user } from './models';
import { hashPassword, randomPassword } from './passwords';

export interface BootstrapResult {
  /** Whether a user was created by this call. */
  created: boolean;
  /** The superuser concerned (null when nothing was configured and users already exist). */
  username: string | null;
  /** Only for a generated admin: shown once by the caller. */
  password?: string;
  /** The key of a generated admin token: shown once by the caller. */
  token?: string;
}

type Env = Record<string, string | undefined>;

/**
 * Creates the first superuser (after migrations ran):
 * - SUPERUSER_NAME + SUPERUSER_PASSWORD (+ SUPERUSER_EMAIL, SUPERUSER_API_TOKEN): that user, when no user
 *   of that name exists, and a token with the given key (netbox-docker behaviour);
 * - nothing configured and no users at all: `admin` with a random password and a random token, both
 *   returned so the caller can print them once.
 * Idempotent across restarts and safe when several replicas start together.
 */
export async function bootstrapAdmin(service: RestService, env: Env = process.env): Promise<BootstrapResult> {
  const { db } = service.ctx;
  const name = env.SUPERUSER_NAME?.trim() || undefined;
  const password = env.SUPERUSER_PASSWORD || undefined;
  if (!!name !== !!password) throw new Error('SUPERUSER_NAME and SUPERUSER_PASSWORD must be set together.');
  const apiToken = env.SUPERUSER_API_TOKEN?.trim() || undefined;
  if (name && apiToken !== undefined && apiToken.length !== TOKEN_KEY_LENGTH) {
    throw new Error(`SUPERUSER_API_TOKEN must be exactly ${TOKEN_KEY_LENGTH} characters long.`);
  }
  const users = raw(db.table('user'));
  const tokens = raw(db.table('token'));

  // through the write pipeline, as the users service itself: the new user and token have their change events
  const { applied } = await runChange(service.ctx, user, serviceIdentity(service.ctx.name), async (wctx): Promise<Bootstrapped> => {
    const { tx } = wctx;
    await tx.query(sql`SELECT pg_advisory_xact_lock(${hashKey('users.bootstrap')})`);
    const create = async (username: string, clear: string, email: string, key: string | undefined): Promise<Touched> => {
      const [row] = await tx.query(
        sql`INSERT INTO ${users} (username, password, email, is_superuser, is_staff, is_active, date_joined)
            VALUES (${username}, ${await hashPassword(clear)}, ${email}, true, true, true, now()) RETURNING id`,
      );
      const touched = { created: [Number(row.id)] };
      if (key === undefined) return touched;
      const [taken] = await tx.query(sql`SELECT 1 FROM ${tokens} WHERE key = ${key}`);
      if (!taken) {
        const [t] = await tx.query(
          sql`INSERT INTO ${tokens} (user_id, key, write_enabled, description, allowed_ips, created) VALUES (${row.id}, ${key}, true, '', '{}', now()) RETURNING id`,
        );
        noteTouched(wctx, token, { created: [Number(t.id)] });
      }
      return touched;
    };

    if (name && password) {
      const [existing] = await tx.query(sql`SELECT id FROM ${users} WHERE username = ${name}`);
      if (existing) return { touched: {}, result: { created: false, username: name } };
      const touched = await create(name, password, env.SUPERUSER_EMAIL?.trim() ?? '', apiToken);
      return { touched, result: { created: true, username: name } };
    }
    const [any] = await tx.query(sql`SELECT 1 FROM ${users} LIMIT 1`);
    if (any) return { touched: {}, result: { created: false, username: null } };
    const generated = randomPassword();
    const key = generateKey();
    const touched = await create('admin', generated, '', key);
    return { touched, result: { created: true, username: 'admin', password: generated, token: key } };
  });
  return applied.result;
}

interface Bootstrapped {
  touched: Touched;
  result: BootstrapResult;
}
