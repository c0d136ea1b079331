import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history: the DDL `0001_initial` ran when it still derived the tables
 * from the live declarations (captured from that release; databases it created
 * ran exactly this). Never edit it and never import the declarations here:
 * change a declaration, then add a migration; test/schema.test.ts fails until
 * the migrations arrive at what the declarations describe.
 * The ALTERs and `user_config` were hand-written in 0001 (today's declarations
 * cannot say them; the schema test adds them from ./extra-schema.ts).
 */
export function initialStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE IF NOT EXISTS ${s}."group" (
      "id" BIGSERIAL,
      "name" VARCHAR(150) NOT NULL DEFAULT '' UNIQUE,
      PRIMARY KEY ("id")
    )`,
    `CREATE TABLE IF NOT EXISTS ${s}."user" (
      "id" BIGSERIAL,
      "username" VARCHAR(150) NOT NULL DEFAULT '' UNIQUE,
      "password" VARCHAR(128) NOT NULL,
      "first_name" VARCHAR(150) NOT NULL DEFAULT '',
      "last_name" VARCHAR(150) NOT NULL DEFAULT '',
      "email" VARCHAR(254) NOT NULL DEFAULT '',
      "is_staff" BOOLEAN,
      "is_active" BOOLEAN,
      "date_joined" TIMESTAMP WITH TIME ZONE,
      "last_login" TIMESTAMP WITH TIME ZONE,
      "is_superuser" BOOLEAN,
      PRIMARY KEY ("id")
    )`,
    `CREATE TABLE IF NOT EXISTS ${s}."token" (
      "id" BIGSERIAL,
      "user_id" BIGINT NOT NULL REFERENCES ${s}."user" ("id") ON DELETE CASCADE,
      "created" TIMESTAMP WITH TIME ZONE,
      "expires" TIMESTAMP WITH TIME ZONE,
      "last_used" TIMESTAMP WITH TIME ZONE,
      "key" VARCHAR(40) NOT NULL DEFAULT '' UNIQUE,
      "write_enabled" BOOLEAN,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "allowed_ips" TEXT[],
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "token_user_id" ON ${s}."token" ("user_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."object_permission" (
      "id" BIGSERIAL,
      "name" VARCHAR(100) NOT NULL DEFAULT '',
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "enabled" BOOLEAN,
      "object_types" VARCHAR(100)[] NOT NULL,
      "actions" TEXT[] NOT NULL,
      "constraints" JSONB,
      PRIMARY KEY ("id")
    )`,
    `CREATE TABLE IF NOT EXISTS ${s}."user_groups" (
      "id" BIGSERIAL,
      "owner_id" BIGINT NOT NULL REFERENCES ${s}."user" ("id") ON DELETE CASCADE,
      "target_id" BIGINT NOT NULL REFERENCES ${s}."group" ("id") ON DELETE CASCADE,
      PRIMARY KEY ("id")
    )`,
    `CREATE UNIQUE INDEX "user_groups_groups_uniq" ON ${s}."user_groups" ("owner_id", "target_id")`,
    `CREATE INDEX "user_groups_target_id" ON ${s}."user_groups" ("target_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."object_permission_groups" (
      "id" BIGSERIAL,
      "owner_id" BIGINT NOT NULL REFERENCES ${s}."object_permission" ("id") ON DELETE CASCADE,
      "target_id" BIGINT NOT NULL REFERENCES ${s}."group" ("id") ON DELETE CASCADE,
      PRIMARY KEY ("id")
    )`,
    `CREATE UNIQUE INDEX "object_permission_groups_groups_uniq" ON ${s}."object_permission_groups" ("owner_id", "target_id")`,
    `CREATE INDEX "object_permission_groups_target_id" ON ${s}."object_permission_groups" ("target_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."object_permission_users" (
      "id" BIGSERIAL,
      "owner_id" BIGINT NOT NULL REFERENCES ${s}."object_permission" ("id") ON DELETE CASCADE,
      "target_id" BIGINT NOT NULL REFERENCES ${s}."user" ("id") ON DELETE CASCADE,
      PRIMARY KEY ("id")
    )`,
    `CREATE UNIQUE INDEX "object_permission_users_users_uniq" ON ${s}."object_permission_users" ("owner_id", "target_id")`,
    `CREATE INDEX "object_permission_users_target_id" ON ${s}."object_permission_users" ("target_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."_tagged_item" (
      "id" BIGSERIAL,
      "tag_id" BIGINT NOT NULL,
      "content_type" VARCHAR(100) NOT NULL,
      "object_id" BIGINT NOT NULL,
      PRIMARY KEY ("id")
    )`,
    `CREATE UNIQUE INDEX "${schema}_tagged_uniq" ON ${s}."_tagged_item" ("content_type", "object_id", "tag_id")`,
    `CREATE INDEX "tagged_item_tag_id" ON ${s}."_tagged_item" ("tag_id")`,
    `ALTER TABLE ${s}."user" ALTER COLUMN is_superuser SET DEFAULT false`,
    `ALTER TABLE ${s}."user" ALTER COLUMN is_superuser SET NOT NULL`,
    `ALTER TABLE ${s}."user" ALTER COLUMN is_staff SET DEFAULT false`,
    `ALTER TABLE ${s}."user" ALTER COLUMN is_active SET DEFAULT true`,
    `ALTER TABLE ${s}."user" ALTER COLUMN date_joined SET DEFAULT now()`,
    `ALTER TABLE ${s}."token" ALTER COLUMN created SET DEFAULT now()`,
    `ALTER TABLE ${s}."token" ALTER COLUMN write_enabled SET DEFAULT true`,
    `ALTER TABLE ${s}."token" ALTER COLUMN allowed_ips SET DEFAULT '{}'`,
    `ALTER TABLE ${s}."object_permission" ALTER COLUMN enabled SET DEFAULT true`,
    `CREATE TABLE ${s}."user_config" (user_id bigint PRIMARY KEY, data jsonb NOT NULL DEFAULT '{}'::jsonb)`,
  ];
}

export const initial: Migration = {
  name: '0001_initial',
  up: ({ qi, schema }) => runStatements(qi, initialStatements(schema)),
};
