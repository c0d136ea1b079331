import { DataTypes, type ModelAttributeColumnOptions, type QueryInterface, Sequelize } from 'sequelize';
import { Umzug, SequelizeStorage } from 'umzug';
import type { FieldDef } from './fields';
import type { ModelDef } from './model';

/** Tags live beside the objects of each service; tag definitions live in extras. */
export const TAGGED_ITEM_TABLE = '_tagged_item';

function columnType(field: FieldDef) {
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
      return DataTypes.DECIMAL(16, 4);
    case 'boolean':
      return DataTypes.BOOLEAN;
    case 'date':
      return DataTypes.DATEONLY;
    case 'datetime':
      return DataTypes.DATE;
    case 'json':
      return DataTypes.JSONB;
    case 'choice':
      return typeof field.choices[0]?.[0] === 'number' ? DataTypes.INTEGER : DataTypes.STRING(50);
    case 'fk':
      return DataTypes.BIGINT;
    case 'contenttype':
      return field.many ? DataTypes.ARRAY(DataTypes.STRING(100)) : DataTypes.STRING(100);
    case 'array':
      return field.of === 'integer' ? DataTypes.ARRAY(DataTypes.BIGINT) : DataTypes.ARRAY(DataTypes.TEXT);
    default:
      throw new Error(`no column for ${field.type}`);
  }
}

const ON_DELETE = { CASCADE: 'CASCADE', SET_NULL: 'SET NULL', PROTECT: 'RESTRICT' } as const;

/** Sequelize attributes derived from the declaration (used by the migrations). */
export function attributesOf(model: ModelDef, schema: string, local: Map<string, ModelDef>): Record<string, ModelAttributeColumnOptions> {
  const attrs: Record<string, ModelAttributeColumnOptions> = {
    id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
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
      if (target) {
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
  }
  if (model.tree) {
    attrs._depth = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };
    attrs._path = { type: DataTypes.ARRAY(DataTypes.BIGINT), allowNull: false, defaultValue: [] };
    attrs._tree_sort = { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: [] };
  }
  if (model.customFields) attrs.custom_field_data = { type: DataTypes.JSONB, allowNull: false, defaultValue: {} };
  if (model.timestamps) {
    attrs.created = { type: DataTypes.DATE, allowNull: true, defaultValue: Sequelize.fn('now') };
    attrs.last_updated = { type: DataTypes.DATE, allowNull: true, defaultValue: Sequelize.fn('now') };
  }
  return attrs;
}

/** Creates the tables, link tables and indexes of the given models (first migration of a service). */
export async function createModelTables(qi: QueryInterface, schema: string, models: ModelDef[]): Promise<void> {
  const local = new Map(models.map((m) => [m.label, m]));
  await qi.sequelize.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  for (const model of models) {
    await qi.createTable({ tableName: model.table, schema }, attributesOf(model, schema, local));
    for (const [name, field] of Object.entries(model.fields)) {
      if (field.type === 'fk' || (field.type === 'generic' && !field.virtual)) {
        const cols = field.type === 'fk' ? [`${name}_id`] : [field.typeField, field.idField];
        await qi.addIndex({ tableName: model.table, schema }, cols);
      }
    }
    if (model.tree) await qi.sequelize.query(`CREATE INDEX ON "${schema}"."${model.table}" USING GIN (_path)`);
    // the database enforces the unique rules too, so two writes in one batch (or two racing requests) cannot both win
    for (const [i, u] of model.unique.entries()) {
      const cols = u.fields.map((f) => {
        const field = model.fields[f];
        const c = field?.type === 'fk' ? `${f}_id` : f;
        return u.caseInsensitive ? `lower("${c}")` : `"${c}"`;
      });
      const where = u.whenNull?.length ? ` WHERE ${u.whenNull.map((f) => `"${model.fields[f]?.type === 'fk' ? `${f}_id` : f}" IS NULL`).join(' AND ')}` : '';
      await qi.sequelize.query(`CREATE UNIQUE INDEX "${uniqueIndexName(model.table, i)}" ON "${schema}"."${model.table}" (${cols.join(', ')})${where}`);
    }
  }
  for (const model of models) {
    for (const [name, field] of Object.entries(model.fields)) {
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
      await qi.addIndex({ tableName: field.through, schema }, ['owner_id', 'target_id'], { unique: true, name: `${field.through}_${name}_uniq` });
      await qi.addIndex({ tableName: field.through, schema }, ['target_id']);
    }
  }
  await qi.createTable({ tableName: TAGGED_ITEM_TABLE, schema }, {
    id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
    tag_id: { type: DataTypes.BIGINT, allowNull: false },
    content_type: { type: DataTypes.STRING(100), allowNull: false },
    object_id: { type: DataTypes.BIGINT, allowNull: false },
  });
  await qi.addIndex({ tableName: TAGGED_ITEM_TABLE, schema }, ['content_type', 'object_id', 'tag_id'], { unique: true, name: `${schema}_tagged_uniq` });
  await qi.addIndex({ tableName: TAGGED_ITEM_TABLE, schema }, ['tag_id']);
}

export interface Migration {
  name: string;
  up: (ctx: { qi: QueryInterface; schema: string; models: ModelDef[] }) => Promise<void>;
}

/** Runs a service's pending migrations (umzug, state kept in the service's own schema). */
export async function migrate(url: string, schema: string, models: ModelDef[], migrations: Migration[]): Promise<string[]> {
  const sequelize = new Sequelize(url, { dialect: 'postgres', logging: false, pool: { max: 1 } });
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

export function uniqueIndexName(table: string, i: number): string {
  return `${table}_unique_${i}`;
}

export function hashKey(text: string): number {
  let h = 0;
  for (const c of text) h = (Math.imul(31, h) + c.charCodeAt(0)) | 0;
  return h;
}
