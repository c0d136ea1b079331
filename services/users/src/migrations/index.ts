import { createModelTables, type Migration } from '@inventory/rest';
import { USER_CONFIG_TABLE } from '../models';

export const migrations: Migration[] = [
  {
    name: '0001_initial',
    up: async ({ qi, schema, models }) => {
      await createModelTables(qi, schema, models);
      const t = (name: string) => `"${schema}"."${name}"`;
      const statements = [
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
      ];
      for (const s of statements) await qi.sequelize.query(s);
    },
  },
];
