import pg from 'pg';
import { describeSchema, migrate, schemaDrift } from '@inventory/rest';
import { createTestDatabase } from '@inventory/testkit';
import { models } from '../src/models';
import { migrations } from '../src/migrations';
import { extraSchema } from '../src/migrations/extra-schema';

const SCHEMA = 'users';

/** The indexes of a database the previous release created (its frozen 0001_initial). */
const RELEASED_0001_INDEXES = [
  '_tagged_item_pkey',
  'group_name_key',
  'group_pkey',
  'object_permission_groups_groups_uniq',
  'object_permission_groups_pkey',
  'object_permission_groups_target_id',
  'object_permission_pkey',
  'object_permission_users_pkey',
  'object_permission_users_target_id',
  'object_permission_users_users_uniq',
  'tagged_item_tag_id',
  'token_key_key',
  'token_pkey',
  'token_user_id',
  'user_config_pkey',
  'user_groups_groups_uniq',
  'user_groups_pkey',
  'user_groups_target_id',
  'user_pkey',
  'user_username_key',
  'users_tagged_uniq',
];

async function indexNames(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const schema = await describeSchema(client, SCHEMA);
    return Object.values(schema.tables).flatMap((t) => Object.keys(t.indexes)).sort();
  } finally {
    await client.end();
  }
}

describe('users schema history', () => {
  test('when an empty database is migrated, then it is exactly what the declarations describe (plus what the declarations cannot say, src/migrations/extra-schema.ts)', async () => {
    const db = await createTestDatabase();
    try {
      expect(await schemaDrift({ url: db.url, schema: SCHEMA, models, migrations, extra: extraSchema })).toEqual([]);
    } finally {
      await db.drop();
    }
  });

  test('when a database of the previous release upgrades, then it gets the table-and-column index names and no drift', async () => {
    const db = await createTestDatabase();
    try {
      await migrate(db.url, SCHEMA, models, migrations.slice(0, 1));
      expect(await indexNames(db.url)).toEqual(RELEASED_0001_INDEXES);
      expect(await schemaDrift({ url: db.url, schema: SCHEMA, models, migrations, extra: extraSchema })).toEqual([]);
    } finally {
      await db.drop();
    }
  });
});
