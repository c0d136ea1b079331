import pg from 'pg';
import { describeSchema, migrate, schemaDrift, type Migration, type ModelDef } from '@inventory/rest';
import { createTestDatabase } from './database';

export interface SchemaHistoryOptions {
  /** The service's schema (its name). */
  schema: string;
  models: ModelDef[];
  migrations: Migration[];
  /** What the declarations cannot say (hand-written DDL the migrations also create). */
  extra?: (schema: string) => string[];
  /** The index names a database of the previous release has (after its frozen 0001_initial alone). */
  releasedIndexes: string[];
}

async function indexNames(url: string, schema: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const described = await describeSchema(client, schema);
    return Object.values(described.tables).flatMap((t) => Object.keys(t.indexes)).sort();
  } finally {
    await client.end();
  }
}

/**
 * The schema-history contract of one service: its migrations, run on an empty
 * database or on one of the previous release, arrive exactly at what its
 * declarations describe (any difference is named).
 */
export function runSchemaHistory(o: SchemaHistoryOptions): void {
  const drift = (url: string) => schemaDrift({ url, schema: o.schema, models: o.models, migrations: o.migrations, extra: o.extra });
  const withDatabase = async (fn: (url: string) => Promise<void>) => {
    const db = await createTestDatabase();
    try {
      await fn(db.url);
    } finally {
      await db.drop();
    }
  };

  describe(`${o.schema} schema history`, () => {
    test('when an empty database is migrated, then it is exactly what the declarations describe', () =>
      withDatabase(async (url) => {
        expect(await drift(url)).toEqual([]);
      }));

    test('when a database of the previous release upgrades, then it gets the table-and-column index names and no drift', () =>
      withDatabase(async (url) => {
        await migrate(url, o.schema, o.models, o.migrations.slice(0, 1));
        expect(await indexNames(url, o.schema)).toEqual(o.releasedIndexes);
        expect(await drift(url)).toEqual([]);
      }));
  });
}
