import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history: the DDL `0001_initial` ran when it still derived the tables
 * from the live declarations (captured from that release; databases it created
 * ran exactly this). Never edit it and never import the declarations here:
 * change a declaration, then add a migration; test/schema.test.ts fails until
 * the migrations arrive at what the declarations describe.
 */
export function initialStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE IF NOT EXISTS ${s}."tag" (
      "id" BIGSERIAL,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "color" VARCHAR(6),
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "object_types" VARCHAR(100)[],
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE TABLE IF NOT EXISTS ${s}."custom_field_choice_set" (
      "id" BIGSERIAL,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "base_choices" VARCHAR(50),
      "extra_choices" JSONB NOT NULL,
      "order_alphabetically" BOOLEAN,
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE TABLE IF NOT EXISTS ${s}."custom_field" (
      "id" BIGSERIAL,
      "content_types" VARCHAR(100)[] NOT NULL,
      "type" VARCHAR(50),
      "object_type" VARCHAR(100),
      "name" VARCHAR(50) NOT NULL DEFAULT '' UNIQUE,
      "label" VARCHAR(50) NOT NULL DEFAULT '',
      "group_name" VARCHAR(50) NOT NULL DEFAULT '',
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "required" BOOLEAN,
      "search_weight" INTEGER,
      "filter_logic" VARCHAR(50),
      "ui_visible" VARCHAR(50),
      "ui_editable" VARCHAR(50),
      "is_cloneable" BOOLEAN,
      "default" JSONB,
      "weight" INTEGER,
      "validation_minimum" INTEGER,
      "validation_maximum" INTEGER,
      "validation_regex" VARCHAR(500) NOT NULL DEFAULT '',
      "choice_set_id" BIGINT REFERENCES ${s}."custom_field_choice_set" ("id") ON DELETE RESTRICT,
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "custom_field_choice_set_id" ON ${s}."custom_field" ("choice_set_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."_tagged_item" (
      "id" BIGSERIAL,
      "tag_id" BIGINT NOT NULL,
      "content_type" VARCHAR(100) NOT NULL,
      "object_id" BIGINT NOT NULL,
      PRIMARY KEY ("id")
    )`,
    `CREATE UNIQUE INDEX "${schema}_tagged_uniq" ON ${s}."_tagged_item" ("content_type", "object_id", "tag_id")`,
    `CREATE INDEX "tagged_item_tag_id" ON ${s}."_tagged_item" ("tag_id")`,
  ];
}

export const initial: Migration = {
  name: '0001_initial',
  up: ({ qi, schema }) => runStatements(qi, initialStatements(schema)),
};
