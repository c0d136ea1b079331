import pg from 'pg';
import { describeSchema, migrate, schemaDrift } from '@inventory/rest';
import { createTestDatabase } from '@inventory/testkit';
import { models } from '../src/models';
import { migrations } from '../src/migrations';

const SCHEMA = 'tenancy';

/** The indexes of a database the previous release created (its frozen 0001_initial). */
const RELEASED_0001_INDEXES = [
  '_tagged_item_pkey',
  'contact_assignment_contact_id',
  'contact_assignment_content_type_object_id',
  'contact_assignment_pkey',
  'contact_assignment_role_id',
  'contact_assignment_unique_0',
  'contact_group__path_idx',
  'contact_group_id',
  'contact_group_parent_id',
  'contact_group_pkey',
  'contact_group_unique_0',
  'contact_pkey',
  'contact_role_name_key',
  'contact_role_pkey',
  'contact_role_slug_key',
  'contact_unique_0',
  'tagged_item_tag_id',
  'tenancy_tagged_uniq',
  'tenant_group__path_idx',
  'tenant_group_id',
  'tenant_group_name_key',
  'tenant_group_parent_id',
  'tenant_group_pkey',
  'tenant_group_slug_key',
  'tenant_pkey',
  'tenant_unique_0',
  'tenant_unique_1',
  'tenant_unique_2',
  'tenant_unique_3',
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

describe('tenancy schema history', () => {
  test('when an empty database is migrated, then it is exactly what the declarations describe', async () => {
    const db = await createTestDatabase();
    try {
      expect(await schemaDrift({ url: db.url, schema: SCHEMA, models, migrations })).toEqual([]);
    } finally {
      await db.drop();
    }
  });

  test('when a database of the previous release upgrades, then it gets the table-and-column index names and no drift', async () => {
    const db = await createTestDatabase();
    try {
      await migrate(db.url, SCHEMA, models, migrations.slice(0, 1));
      expect(await indexNames(db.url)).toEqual(RELEASED_0001_INDEXES);
      expect(await schemaDrift({ url: db.url, schema: SCHEMA, models, migrations })).toEqual([]);
    } finally {
      await db.drop();
    }
  });
});
