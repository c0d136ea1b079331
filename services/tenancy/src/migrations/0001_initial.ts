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
    `CREATE TABLE IF NOT EXISTS ${s}."tenant_group" (
      "id" BIGSERIAL,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "parent_id" BIGINT REFERENCES ${s}."tenant_group" ("id") ON DELETE CASCADE,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "_depth" INTEGER NOT NULL DEFAULT 0,
      "_path" BIGINT[] NOT NULL DEFAULT ARRAY[]::BIGINT[],
      "_tree_sort" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "tenant_group_parent_id" ON ${s}."tenant_group" ("parent_id")`,
    `CREATE INDEX ON ${s}."tenant_group" USING GIN (_path)`,
    `CREATE TABLE IF NOT EXISTS ${s}."tenant" (
      "id" BIGSERIAL,
      "name" VARCHAR(100) NOT NULL DEFAULT '',
      "slug" VARCHAR(100) NOT NULL DEFAULT '',
      "group_id" BIGINT REFERENCES ${s}."tenant_group" ("id") ON DELETE SET NULL,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "comments" TEXT NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "tenant_group_id" ON ${s}."tenant" ("group_id")`,
    `CREATE UNIQUE INDEX "tenant_unique_0" ON ${s}."tenant" ("group_id", "name")`,
    `CREATE UNIQUE INDEX "tenant_unique_1" ON ${s}."tenant" ("name") WHERE "group_id" IS NULL`,
    `CREATE UNIQUE INDEX "tenant_unique_2" ON ${s}."tenant" ("group_id", "slug")`,
    `CREATE UNIQUE INDEX "tenant_unique_3" ON ${s}."tenant" ("slug") WHERE "group_id" IS NULL`,
    `CREATE TABLE IF NOT EXISTS ${s}."contact_group" (
      "id" BIGSERIAL,
      "name" VARCHAR(100) NOT NULL DEFAULT '',
      "slug" VARCHAR(100) NOT NULL DEFAULT '',
      "parent_id" BIGINT REFERENCES ${s}."contact_group" ("id") ON DELETE CASCADE,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "_depth" INTEGER NOT NULL DEFAULT 0,
      "_path" BIGINT[] NOT NULL DEFAULT ARRAY[]::BIGINT[],
      "_tree_sort" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "contact_group_parent_id" ON ${s}."contact_group" ("parent_id")`,
    `CREATE INDEX ON ${s}."contact_group" USING GIN (_path)`,
    `CREATE UNIQUE INDEX "contact_group_unique_0" ON ${s}."contact_group" ("parent_id", "name")`,
    `CREATE TABLE IF NOT EXISTS ${s}."contact_role" (
      "id" BIGSERIAL,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE TABLE IF NOT EXISTS ${s}."contact" (
      "id" BIGSERIAL,
      "group_id" BIGINT REFERENCES ${s}."contact_group" ("id") ON DELETE SET NULL,
      "name" VARCHAR(100) NOT NULL DEFAULT '',
      "title" VARCHAR(100) NOT NULL DEFAULT '',
      "phone" VARCHAR(50) NOT NULL DEFAULT '',
      "email" VARCHAR(254) NOT NULL DEFAULT '',
      "address" VARCHAR(200) NOT NULL DEFAULT '',
      "link" VARCHAR(200) NOT NULL DEFAULT '',
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "comments" TEXT NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "contact_group_id" ON ${s}."contact" ("group_id")`,
    `CREATE UNIQUE INDEX "contact_unique_0" ON ${s}."contact" ("group_id", "name")`,
    `CREATE TABLE IF NOT EXISTS ${s}."contact_assignment" (
      "id" BIGSERIAL,
      "content_type" VARCHAR(100) NOT NULL,
      "object_id" INTEGER NOT NULL,
      "contact_id" BIGINT NOT NULL REFERENCES ${s}."contact" ("id") ON DELETE RESTRICT,
      "role_id" BIGINT NOT NULL REFERENCES ${s}."contact_role" ("id") ON DELETE RESTRICT,
      "priority" VARCHAR(50) NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "contact_assignment_content_type_object_id" ON ${s}."contact_assignment" ("content_type", "object_id")`,
    `CREATE INDEX "contact_assignment_contact_id" ON ${s}."contact_assignment" ("contact_id")`,
    `CREATE INDEX "contact_assignment_role_id" ON ${s}."contact_assignment" ("role_id")`,
    `CREATE UNIQUE INDEX "contact_assignment_unique_0" ON ${s}."contact_assignment" ("content_type", "object_id", "contact_id", "role_id")`,
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
