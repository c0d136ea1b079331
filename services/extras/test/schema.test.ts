import pg from 'pg';
import { describeSchema, migrate, schemaDrift } from '@inventory/rest';
import { createTestDatabase } from '@inventory/testkit';
import { models } from '../src/models';
import { migrations } from '../src/migrations';

const SCHEMA = 'extras';

/** The indexes of a database the previous release created (its frozen 0001_initial). */
const RELEASED_0001_INDEXES = [
  '_tagged_item_pkey',
  'custom_field_choice_set_id',
  'custom_field_choice_set_name_key',
  'custom_field_choice_set_pkey',
  'custom_field_name_key',
  'custom_field_pkey',
  'extras_tagged_uniq',
  'tag_name_key',
  'tag_pkey',
  'tag_slug_key',
  'tagged_item_tag_id',
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

describe('extras schema history', () => {
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
