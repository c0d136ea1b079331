import { DASHBOARD_TABLE, USER_CONFIG_TABLE } from '../models';
import { AUTH_ATTEMPT_TABLE } from '../throttle';

/**
 * What the declarations cannot say: the users schema beyond the tables
 * `createModelTables` derives from the models. The schema test
 * (test/schema.test.ts) adds these statements to the declared side before it
 * compares it with what the migrations built, so a change here without a
 * migration (or a migration without a change here) fails that test.
 * Migrations never import this file: they are frozen SQL.
 */
export function extraSchema(schema: string): string[] {
  const t = (name: string) => `"${schema}"."${name}"`;
  return [
    // columns the API never writes on create keep sensible values for direct inserts (bootstrap)
    `ALTER TABLE ${t('user')} ALTER COLUMN is_superuser SET DEFAULT false`,
    `ALTER TABLE ${t('user')} ALTER COLUMN is_superuser SET NOT NULL`,
    `ALTER TABLE ${t('user')} ALTER COLUMN is_staff SET DEFAULT false`,
    `ALTER TABLE ${t('user')} ALTER COLUMN is_active SET DEFAULT true`,
    `ALTER TABLE ${t('user')} ALTER COLUMN date_joined SET DEFAULT now()`,
    `ALTER TABLE ${t('token')} ALTER COLUMN created SET DEFAULT now()`,
    `ALTER TABLE ${t('token')} ALTER COLUMN write_enabled SET DEFAULT true`,
    `ALTER TABLE ${t('token')} ALTER COLUMN allowed_ips SET DEFAULT '{}'`,
    `ALTER TABLE ${t('object_permission')} ALTER COLUMN enabled SET DEFAULT true`,
    // preferences per user (/api/users/config/); removed with the user (user beforeDelete hook)
    `CREATE TABLE ${t(USER_CONFIG_TABLE)} (user_id bigint PRIMARY KEY, data jsonb NOT NULL DEFAULT '{}'::jsonb)`,
    // each user's dashboard (/api/extras/dashboard/, migration 0010); removed with the user too
    `CREATE TABLE ${t(DASHBOARD_TABLE)} (user_id bigint PRIMARY KEY, layout jsonb NOT NULL DEFAULT '[]'::jsonb, config jsonb NOT NULL DEFAULT '{}'::jsonb)`,
    // sign-in attempts for the rate limits (throttle.ts, migration 0002_auth_attempts)
    `CREATE TABLE ${t(AUTH_ATTEMPT_TABLE)} (
      scope varchar(16) NOT NULL,
      key char(64) NOT NULL,
      window_start timestamptz NOT NULL,
      count integer NOT NULL,
      PRIMARY KEY (scope, key)
    )`,
    `CREATE INDEX "${AUTH_ATTEMPT_TABLE}_window_start_idx" ON ${t(AUTH_ATTEMPT_TABLE)} (window_start)`,
  ];
}
