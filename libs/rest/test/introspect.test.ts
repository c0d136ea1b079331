import pg from 'pg';
import { createModelTables, historyTables, sharedTables, defineModel, f, schemaDrift, type Migration, type ModelDef, type SchemaDescription } from '@inventory/rest';
import { diffSchemas } from '../src/model/introspect';
import { objectName, uniqueIndexName } from '../src/model/schema';
import { uniqueViolation } from '../src/write/write';
import { createTestDatabase } from '@inventory/testkit';
import { group } from './fixtures';

const widget = defineModel({
  label: 'demo.widget',
  endpoint: 'widgets',
  verboseName: 'widget',
  fields: { name: f.name(50), group: f.fk('demo.group', 'SET_NULL'), description: f.description() },
  brief: ['name'],
  display: (r) => String(r.name),
  ordering: ['name'],
  unique: [
    { fields: ['group', 'name'], errorField: 'name', message: 'Name must be unique per group.' },
    { fields: ['name'], whenNull: ['group'], errorField: 'name', message: 'Name must be unique without a group.' },
  ],
});

/** The history: one migration that created the declarations as they were. */
const released: Migration[] = [{ name: '0001_initial', up: ({ qi, schema }) => createModelTables(qi, schema, [group, widget]) }, sharedTables, historyTables];

const changed = (fields: Partial<ModelDef['fields']>, more: Partial<ModelDef> = {}): ModelDef =>
  ({ ...widget, ...more, fields: { ...widget.fields, ...fields } }) as ModelDef;

describe('names of indexes and constraints', () => {
  test('when a name is derived, then it comes from the table and columns, not from the rule position', () => {
    expect(uniqueIndexName(widget, widget.unique[0])).toBe('widget_group_id_name_uniq');
    expect(uniqueIndexName(widget, widget.unique[1])).toBe('widget_name_where_group_id_null_uniq');
    expect(uniqueIndexName(widget, { fields: ['name'], caseInsensitive: true, message: '' })).toBe('widget_name_ci_uniq');
    const reordered = { ...widget, unique: [...widget.unique].reverse() };
    expect(reordered.unique.map((u) => uniqueIndexName(reordered, u)).sort()).toEqual(widget.unique.map((u) => uniqueIndexName(widget, u)).sort());
  });

  test('when a name would pass 63 characters, then it is cut and keeps a hash of the full name', () => {
    const long = objectName('contact_assignment', ['content_type', 'object_id', 'contact_id', 'role_id'], 'uniq');
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^contact_assignment_content_type_object_id_contact_[0-9a-f]{8}_uniq$/);
    expect(objectName('contact_assignment', ['content_type', 'object_id', 'contact_id', 'priority'], 'uniq')).not.toBe(long);
  });
});

describe('diffSchemas', () => {
  const table = { columns: { id: { type: 'bigint', nullable: false, default: null } }, indexes: {}, constraints: {} };
  test('when tables differ, then each one is named', () => {
    const expected: SchemaDescription = { schema: 'x_expected', tables: { a: table, b: table } };
    const actual: SchemaDescription = { schema: 'x', tables: { a: table, c: table } };
    expect(diffSchemas(expected, actual)).toEqual(['x.b: table expected, missing', 'x.c: table not expected, present']);
  });
});

describe('schemaDrift', () => {
  let db: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db?.drop());

  test('when the migrations built the declarations, then there is no difference', async () => {
    expect(await schemaDrift({ url: db.url, schema: 'same', models: [group, widget], migrations: released })).toEqual([]);
  });

  test('when the database rejects a duplicate, then the index name leads back to the declared rule', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(`INSERT INTO same.widget (name) VALUES ('a')`);
      const err = await client.query(`INSERT INTO same.widget (name) VALUES ('a')`).catch((e: unknown) => e);
      expect(() => uniqueViolation(widget, err)).toThrow(expect.objectContaining({ errors: { name: ['Name must be unique without a group.'] } }));
    } finally {
      await client.end();
    }
  });

  test('when a field became nullable without a migration, then its nullability and default are reported', async () => {
    const models = [group, changed({ description: { type: 'string', maxLength: 200, nullable: true } })];
    expect(await schemaDrift({ url: db.url, schema: 'nullable', models, migrations: released })).toEqual([
      'nullable.widget: column description: nullable expected YES, got NO',
      "nullable.widget: column description: default expected none, got ''::character varying",
    ]);
  });

  test('when a field was added without a migration, then the missing column is reported, in the table and in its history', async () => {
    const models = [group, changed({ size: f.integer() })];
    expect(await schemaDrift({ url: db.url, schema: 'added', models, migrations: released })).toEqual([
      'added.widget: column size: expected (integer), missing',
      'added.widget__history: column size: expected (integer), missing',
    ]);
  });

  test('when a relation or a unique rule changed without a migration, then the constraint and the index are reported', async () => {
    const models = [
      group,
      changed({ group: f.fk('demo.group', 'CASCADE', { nullable: true }) }, { unique: [...widget.unique, { fields: ['name'], caseInsensitive: true, message: '' }] }),
    ];
    expect(await schemaDrift({ url: db.url, schema: 'rules', models, migrations: released })).toEqual([
      'rules.widget: index widget_name_ci_uniq: expected, missing (CREATE UNIQUE INDEX ON widget USING btree (lower((name)::text)))',
      'rules.widget: constraint widget_group_id_fkey: expected foreign key: FOREIGN KEY (group_id) REFERENCES "group"(id) ON DELETE CASCADE, ' +
        'got foreign key: FOREIGN KEY (group_id) REFERENCES "group"(id) ON DELETE SET NULL',
    ]);
  });

  test('when a migration named an index differently, then the rename is reported', async () => {
    const renamed: Migration[] = [
      ...released,
      { name: '0002_rename', up: ({ qi, schema }) => qi.sequelize.query(`ALTER INDEX "${schema}"."group__path_idx" RENAME TO "group_path_gin"`).then(() => undefined) },
    ];
    expect(await schemaDrift({ url: db.url, schema: 'renamed', models: [group, widget], migrations: renamed })).toEqual([
      'renamed.group: index group__path_idx: expected, found named group_path_gin (CREATE INDEX ON "group" USING gin (_path))',
    ]);
  });
});
