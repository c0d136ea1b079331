import { createHash } from 'node:crypto';
import type * as SequelizeLib from 'sequelize';
import type { ModelAttributeColumnOptions, QueryInterface } from 'sequelize';
import type * as UmzugLib from 'umzug';
import pg from 'pg';
import { DECIMAL_DIGITS, DECIMAL_PLACES, NETWORK_TYPES, TEXT_TYPES, type FieldDef } from './fields';
import type { ModelDef, UniqueDef } from './model';
import { NATURAL_KEY_LENGTH, naturalColumn } from './natural';

/*
 * sequelize and umzug are loaded when a schema is created or migrated, not
 * before: a service whose schema is already up to date (the migration job
 * ran) never holds them, about 27 MB resident per process.
 */
const sequelizeLib = (): typeof SequelizeLib => require('sequelize');
const umzugLib = (): typeof UmzugLib => require('umzug');

/** For services' migrations, which depend on this package rather than on events. */
export { outboxJsonStatements } from '@inventory/events';

/** Tags live beside the objects of each service; tag definitions live in extras. */
export const TAGGED_ITEM_TABLE = '_tagged_item';

/** The `Idempotency-Key` records of each service's writes (idempotency.ts). */
export const IDEMPOTENCY_TABLE = '_idempotency_key';

function columnType(field: FieldDef) {
  const { DataTypes } = sequelizeLib();
  switch (field.type) {
    case 'string':
    case 'slug':
    case 'email':
    case 'url':
    case 'password':
    case 'color':
      return field.maxLength ? DataTypes.STRING(field.maxLength) : DataTypes.TEXT;
    case 'text':
      return DataTypes.TEXT;
    case 'integer':
      return DataTypes.INTEGER;
    case 'bigint':
      return DataTypes.BIGINT;
    case 'decimal':
      return DataTypes.DECIMAL(field.maxDigits ?? DECIMAL_DIGITS, field.decimalPlaces ?? DECIMAL_PLACES);
    case 'boolean':
      return DataTypes.BOOLEAN;
    case 'date':
      return DataTypes.DATEONLY;
    case 'datetime':
      return DataTypes.DATE;
    case 'json':
      return field.asText ? DataTypes.JSON : DataTypes.JSONB;
    case 'choice':
      return typeof field.choices[0]?.[0] === 'number' ? DataTypes.INTEGER : DataTypes.STRING(50);
    case 'fk':
      return DataTypes.BIGINT;
    case 'contenttype':
      return field.many ? DataTypes.ARRAY(DataTypes.STRING(100)) : DataTypes.STRING(100);
    case 'cidr':
      return DataTypes.CIDR;
    case 'inet':
      return DataTypes.INET;
    case 'array':
      return field.of === 'integer' ? DataTypes.ARRAY(DataTypes.BIGINT) : DataTypes.ARRAY(DataTypes.TEXT);
    default:
      throw new Error(`no column for ${field.type}`);
  }
}

const ON_DELETE = { CASCADE: 'CASCADE', SET_NULL: 'SET NULL', PROTECT: 'RESTRICT' } as const;

/** Sequelize attributes derived from the declaration (the columns `createModelTables` creates). */
export function attributesOf(model: ModelDef, schema: string, local: Map<string, ModelDef>): Record<string, ModelAttributeColumnOptions> {
  const { DataTypes } = sequelizeLib();
  const attrs: Record<string, ModelAttributeColumnOptions> = {
    id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
    // raised by every write of the row: the object's version (ETag, If-Match)
    _version: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 1 },
  };
  for (const [name, field] of Object.entries(model.fields)) {
    if (field.virtual || field.type === 'm2m') continue;
    if (field.type === 'generic') {
      attrs[field.typeField] ??= { type: DataTypes.STRING(100), allowNull: !field.required };
      attrs[field.idField] ??= { type: DataTypes.BIGINT, allowNull: !field.required };
      continue;
    }
    const column = field.type === 'fk' ? `${name}_id` : name;
    const opt: ModelAttributeColumnOptions = { type: columnType(field), allowNull: field.nullable ?? !field.required };
    if (field.type === 'fk') {
      const target = local.get(field.to);
      // a target declared later (a device's virtual chassis, whose master is a device) gets its constraint once both tables exist
      if (target && !laterTargets(model, local).has(field.to)) {
        opt.references = { model: { tableName: target.table, schema }, key: 'id' };
        opt.onDelete = ON_DELETE[field.onDelete];
      }
      opt.allowNull = field.nullable ?? false;
    }
    if (field.type === 'string' || field.type === 'text' || field.type === 'slug' || field.type === 'email' || field.type === 'url') {
      if (!field.nullable) {
        opt.allowNull = false;
        opt.defaultValue = '';
      }
    }
    if (field.type === 'choice' && field.blank && !field.nullable) {
      opt.allowNull = false;
      opt.defaultValue = '';
    }
    if (field.unique === true || typeof field.unique === 'string') opt.unique = true;
    attrs[column] = opt;
    const natural = naturalColumn(name, field);
    if (natural) attrs[natural] = { type: DataTypes.STRING(NATURAL_KEY_LENGTH), allowNull: false, defaultValue: '' };
  }
  if (model.tree) {
    attrs._depth = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };
    attrs._path = { type: DataTypes.ARRAY(DataTypes.BIGINT), allowNull: false, defaultValue: [] };
    attrs._tree_sort = { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: [] };
  }
  if (model.customFields) attrs.custom_field_data = { type: DataTypes.JSONB, allowNull: false, defaultValue: {} };
  if (model.timestamps) {
    attrs.created = { type: DataTypes.DATE, allowNull: true, defaultValue: sequelizeLib().Sequelize.fn('now') };
    attrs.last_updated = { type: DataTypes.DATE, allowNull: true, defaultValue: sequelizeLib().Sequelize.fn('now') };
  }
  return attrs;
}

/** Local models declared after `model` (in table creation order) that it references. */
function laterTargets(model: ModelDef, local: Map<string, ModelDef>): Set<string> {
  const order = [...local.keys()];
  const at = order.indexOf(model.label);
  return new Set(order.slice(at + 1));
}

/**
 * The tables, link tables and indexes the declarations describe: with the
 * shared tables (shared-tables.ts), the schema a service's migrations must
 * arrive at (the schema test compares the two).
 * Migrations never call this: they are frozen SQL (docs/decisions/005).
 * Every index gets an explicit name from its table and columns
 * (`objectName`); constraints declared with a column keep PostgreSQL's
 * `<table>_<column>_pkey|fkey|key`, which derive from the same.
 */
export async function createModelTables(qi: QueryInterface, schema: string, models: ModelDef[]): Promise<void> {
  const local = new Map(models.map((m) => [m.label, m]));
  const ddl = ddlOf(qi, schema);
  await ddl.q(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  for (const model of models) await createModelTable(qi, ddl, model, local);
  for (const model of models) {
    for (const [name, field] of Object.entries(model.fields)) {
      if (field.type !== 'fk' || field.virtual || !laterTargets(model, local).has(field.to)) continue;
      const target = local.get(field.to)!;
      await ddl.q(`ALTER TABLE "${schema}"."${model.table}" ADD CONSTRAINT "${model.table}_${name}_id_fkey" FOREIGN KEY ("${name}_id")
        REFERENCES "${schema}"."${target.table}" ("id") ON DELETE ${ON_DELETE[field.onDelete]}`);
    }
  }
  for (const model of models) await createLinkTables(qi, ddl, model, local);
}

/** Statements run one after another, and named indexes, in a schema. */
function ddlOf(qi: QueryInterface, schema: string) {
  const q = (statement: string) => qi.sequelize.query(statement);
  return { schema, q, index: (table: string, name: string, def: string) => q(`CREATE INDEX "${name}" ON "${schema}"."${table}" ${def}`) };
}
type Ddl = ReturnType<typeof ddlOf>;

/** A model's table and its indexes: references, tree paths, networks (SP-GiST), natural keys, and its unique rules. */
async function createModelTable(qi: QueryInterface, ddl: Ddl, model: ModelDef, local: Map<string, ModelDef>): Promise<void> {
  const { schema, q, index } = ddl;
  await qi.createTable({ tableName: model.table, schema }, attributesOf(model, schema, local));
  for (const [name, field] of Object.entries(model.fields)) {
    if ((field.type === 'fk' || field.type === 'generic') && !field.virtual) {
      const cols = field.type === 'fk' ? [`${name}_id`] : [field.typeField, field.idField];
      await index(model.table, objectName(model.table, cols, 'idx'), `(${cols.map((c) => `"${c}"`).join(', ')})`);
    }
  }
  if (model.tree) await index(model.table, objectName(model.table, ['_path'], 'idx'), 'USING GIN ("_path")');
  // containment of network columns (`>>=`: the prefixes holding one, `<<`) uses an SP-GiST index,
  // faster than GiST to build and to probe (docs/decisions/019-ip-index.md); ordered walks need btrees the service declares
  for (const [name, field] of Object.entries(model.fields)) {
    if (NETWORK_TYPES.has(field.type) && !field.virtual) await index(model.table, objectName(model.table, [name], 'spgist'), `USING SPGIST ("${name}" inet_ops)`);
  }
  for (const [name, field] of Object.entries(model.fields)) {
    const natural = naturalColumn(name, field);
    if (natural) await index(model.table, objectName(model.table, [natural], 'idx'), `("${natural}")`);
  }
  // the database enforces the unique rules too, so two writes in one batch (or two racing requests) cannot both win
  for (const u of model.unique) {
    // case-insensitive rules lower their text columns (a device's name), not the ids beside them
    const lowered = (f: string) => u.caseInsensitive && TEXT_TYPES.has(model.fields[f]?.type);
    const cols = u.fields.map((f) => (lowered(f) ? `lower("${fieldColumn(model, f)}")` : `"${fieldColumn(model, f)}"`));
    const conds = [...(u.whenNull ?? []).map((f) => `"${fieldColumn(model, f)}" IS NULL`), ...(u.unlessBlank ?? []).map((f) => `"${fieldColumn(model, f)}" <> ''`)];
    const where = conds.length ? ` WHERE ${conds.join(' AND ')}` : '';
    await q(`CREATE UNIQUE INDEX "${uniqueIndexName(model, u)}" ON "${schema}"."${model.table}" (${cols.join(', ')})${where}`);
  }
}

/** The link table of each many-to-many field: owner and target (each cascading), unique pairs, targets indexed. */
async function createLinkTables(qi: QueryInterface, ddl: Ddl, model: ModelDef, local: Map<string, ModelDef>): Promise<void> {
  const { DataTypes } = sequelizeLib();
  const { schema, q, index } = ddl;
  for (const field of Object.values(model.fields)) {
    if (field.type !== 'm2m') continue;
    const target = local.get(field.to);
    await qi.createTable({ tableName: field.through, schema }, {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      owner_id: {
        type: DataTypes.BIGINT,
        allowNull: false,
        references: { model: { tableName: model.table, schema }, key: 'id' },
        onDelete: 'CASCADE',
      },
      target_id: {
        type: DataTypes.BIGINT,
        allowNull: false,
        ...(target ? { references: { model: { tableName: target.table, schema }, key: 'id' }, onDelete: 'CASCADE' } : {}),
      },
    });
    await q(`CREATE UNIQUE INDEX "${objectName(field.through, ['owner_id', 'target_id'], 'uniq')}" ON "${schema}"."${field.through}" ("owner_id", "target_id")`);
    await index(field.through, objectName(field.through, ['target_id'], 'idx'), '("target_id")');
  }
}

/** Runs a frozen migration's SQL statements in one transaction. */
export async function runStatements(qi: QueryInterface, statements: string[]): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    for (const statement of statements) await qi.sequelize.query(statement, { transaction });
  });
}

export interface Migration {
  name: string;
  up: (ctx: { qi: QueryInterface; schema: string; models: ModelDef[] }) => Promise<void>;
}

/** A sequelize instance for DDL (one connection), loading sequelize on first use. */
export function connectSequelize(url: string): SequelizeLib.Sequelize {
  const { Sequelize } = sequelizeLib();
  return new Sequelize(url, { dialect: 'postgres', logging: false, pool: { max: 1 } });
}

/** Runs a service's pending migrations (umzug, state kept in the service's own schema). */
export async function migrate(url: string, schema: string, models: ModelDef[], migrations: Migration[]): Promise<string[]> {
  if (await upToDate(url, schema, migrations)) return [];
  const { Umzug, SequelizeStorage } = umzugLib();
  const sequelize = connectSequelize(url);
  try {
    // one service at a time may migrate its schema (several replicas may start together)
    await sequelize.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const qi = sequelize.getQueryInterface();
    const umzug = new Umzug({
      migrations: migrations.map((m) => ({ name: m.name, up: () => m.up({ qi, schema, models }) })),
      storage: new SequelizeStorage({ sequelize, schema, tableName: '_migrations' }),
      logger: undefined,
    });
    const lockKey = hashKey(schema);
    await sequelize.query(`SELECT pg_advisory_lock(${lockKey})`);
    try {
      const done = await umzug.up();
      return done.map((d) => d.name);
    } finally {
      await sequelize.query(`SELECT pg_advisory_unlock(${lockKey})`);
    }
  } finally {
    await sequelize.close();
  }
}

/** Every migration is recorded in the schema's `_migrations` (umzug's table): nothing to load sequelize for. */
async function upToDate(url: string, schema: string, migrations: Migration[]): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const table = `"${schema.replace(/"/g, '""')}"."_migrations"`;
    const exists = (await client.query('SELECT to_regclass($1) AS t', [table])).rows[0].t !== null;
    if (!exists) return false;
    const done = new Set((await client.query(`SELECT name FROM ${table}`)).rows.map((r: { name: string }) => r.name));
    return migrations.every((m) => done.has(m.name));
  } finally {
    await client.end();
  }
}

/** PostgreSQL truncates identifiers past 63 bytes. */
const MAX_IDENTIFIER = 63;

/**
 * The name of an index or constraint: `<table>_<columns>_<suffix>`, from what
 * it covers and never from its position among others. Past 63 characters the
 * middle is cut and a short hash of the full name keeps it unique.
 */
export function objectName(table: string, columns: string[], suffix: string): string {
  const full = [table, ...columns, suffix].join('_');
  if (full.length <= MAX_IDENTIFIER) return full;
  const hash = createHash('sha1').update(full).digest('hex').slice(0, 8);
  const head = [table, ...columns].join('_').slice(0, MAX_IDENTIFIER - suffix.length - hash.length - 2);
  return `${head}_${hash}_${suffix}`;
}

function fieldColumn(model: ModelDef, field: string): string {
  return model.fields[field]?.type === 'fk' ? `${field}_id` : field;
}

/**
 * The unique index enforcing a declared unique rule:
 * `<table>_<columns>[_ci][_where_<columns>_null][_where_<columns>_not_blank]_uniq`
 * (e.g. `tenant_name_where_group_id_null_uniq`); `uniqueViolation` maps it back.
 */
export function uniqueIndexName(model: ModelDef, rule: UniqueDef): string {
  const parts = rule.fields.map((f) => fieldColumn(model, f));
  if (rule.caseInsensitive) parts.push('ci');
  if (rule.whenNull?.length) parts.push('where', ...rule.whenNull.map((f) => fieldColumn(model, f)), 'null');
  if (rule.unlessBlank?.length) parts.push('where', ...rule.unlessBlank.map((f) => fieldColumn(model, f)), 'not_blank');
  return objectName(model.table, parts, 'uniq');
}

export function hashKey(text: string): number {
  let h = 0;
  for (const c of text) h = (Math.imul(31, h) + c.charCodeAt(0)) | 0;
  return h;
}
