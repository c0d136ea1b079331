import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): the dcim schema of
 * its first release, regions, site groups, sites and locations, with the
 * tables every service has (tags, idempotency keys, the outbox, processed
 * events). Never edit it and never import the declarations here: change a
 * declaration, then add a migration; test/schema.test.ts fails until the
 * migrations arrive at what the declarations describe.
 */
export function initialStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE ${s}."region" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '',
      "slug" VARCHAR(100) NOT NULL DEFAULT '',
      "parent_id" BIGINT REFERENCES ${s}."region" ("id") ON DELETE CASCADE,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "_depth" INTEGER NOT NULL DEFAULT 0,
      "_path" BIGINT[] NOT NULL DEFAULT ARRAY[]::BIGINT[],
      "_tree_sort" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "region_parent_id_idx" ON ${s}."region" ("parent_id")`,
    `CREATE INDEX "region__path_idx" ON ${s}."region" USING GIN ("_path")`,
    `CREATE UNIQUE INDEX "region_parent_id_name_uniq" ON ${s}."region" ("parent_id", "name")`,
    `CREATE UNIQUE INDEX "region_name_where_parent_id_null_uniq" ON ${s}."region" ("name") WHERE "parent_id" IS NULL`,
    `CREATE UNIQUE INDEX "region_parent_id_slug_uniq" ON ${s}."region" ("parent_id", "slug")`,
    `CREATE UNIQUE INDEX "region_slug_where_parent_id_null_uniq" ON ${s}."region" ("slug") WHERE "parent_id" IS NULL`,
    `CREATE TABLE ${s}."site_group" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '',
      "slug" VARCHAR(100) NOT NULL DEFAULT '',
      "parent_id" BIGINT REFERENCES ${s}."site_group" ("id") ON DELETE CASCADE,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "_depth" INTEGER NOT NULL DEFAULT 0,
      "_path" BIGINT[] NOT NULL DEFAULT ARRAY[]::BIGINT[],
      "_tree_sort" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "site_group_parent_id_idx" ON ${s}."site_group" ("parent_id")`,
    `CREATE INDEX "site_group__path_idx" ON ${s}."site_group" USING GIN ("_path")`,
    `CREATE UNIQUE INDEX "site_group_parent_id_name_uniq" ON ${s}."site_group" ("parent_id", "name")`,
    `CREATE UNIQUE INDEX "site_group_name_where_parent_id_null_uniq" ON ${s}."site_group" ("name") WHERE "parent_id" IS NULL`,
    `CREATE UNIQUE INDEX "site_group_parent_id_slug_uniq" ON ${s}."site_group" ("parent_id", "slug")`,
    `CREATE UNIQUE INDEX "site_group_slug_where_parent_id_null_uniq" ON ${s}."site_group" ("slug") WHERE "parent_id" IS NULL`,
    // tenant_id names a tenancy tenant: another service's object, so no foreign key
    `CREATE TABLE ${s}."site" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "_name" VARCHAR(100) NOT NULL DEFAULT '',
      "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "status" VARCHAR(50) NOT NULL,
      "region_id" BIGINT REFERENCES ${s}."region" ("id") ON DELETE SET NULL,
      "group_id" BIGINT REFERENCES ${s}."site_group" ("id") ON DELETE SET NULL,
      "tenant_id" BIGINT,
      "facility" VARCHAR(50) NOT NULL DEFAULT '',
      "time_zone" VARCHAR(63),
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "physical_address" VARCHAR(200) NOT NULL DEFAULT '',
      "shipping_address" VARCHAR(200) NOT NULL DEFAULT '',
      "latitude" DECIMAL(8,6),
      "longitude" DECIMAL(9,6),
      "comments" TEXT NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "site_region_id_idx" ON ${s}."site" ("region_id")`,
    `CREATE INDEX "site_group_id_idx" ON ${s}."site" ("group_id")`,
    `CREATE INDEX "site_tenant_id_idx" ON ${s}."site" ("tenant_id")`,
    `CREATE INDEX "site__name_idx" ON ${s}."site" ("_name")`,
    `CREATE TABLE ${s}."location" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '',
      "slug" VARCHAR(100) NOT NULL DEFAULT '',
      "site_id" BIGINT NOT NULL REFERENCES ${s}."site" ("id") ON DELETE CASCADE,
      "parent_id" BIGINT REFERENCES ${s}."location" ("id") ON DELETE CASCADE,
      "status" VARCHAR(50) NOT NULL,
      "tenant_id" BIGINT,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "_depth" INTEGER NOT NULL DEFAULT 0,
      "_path" BIGINT[] NOT NULL DEFAULT ARRAY[]::BIGINT[],
      "_tree_sort" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "location_site_id_idx" ON ${s}."location" ("site_id")`,
    `CREATE INDEX "location_parent_id_idx" ON ${s}."location" ("parent_id")`,
    `CREATE INDEX "location_tenant_id_idx" ON ${s}."location" ("tenant_id")`,
    `CREATE INDEX "location__path_idx" ON ${s}."location" USING GIN ("_path")`,
    `CREATE UNIQUE INDEX "location_site_id_parent_id_name_uniq" ON ${s}."location" ("site_id", "parent_id", "name")`,
    `CREATE UNIQUE INDEX "location_site_id_name_where_parent_id_null_uniq" ON ${s}."location" ("site_id", "name") WHERE "parent_id" IS NULL`,
    `CREATE UNIQUE INDEX "location_site_id_parent_id_slug_uniq" ON ${s}."location" ("site_id", "parent_id", "slug")`,
    `CREATE UNIQUE INDEX "location_site_id_slug_where_parent_id_null_uniq" ON ${s}."location" ("site_id", "slug") WHERE "parent_id" IS NULL`,
    // target_id names an ipam ASN: another service's object, so no foreign key
    `CREATE TABLE ${s}."site_asns" (
      "id" BIGSERIAL,
      "owner_id" BIGINT NOT NULL REFERENCES ${s}."site" ("id") ON DELETE CASCADE,
      "target_id" BIGINT NOT NULL,
      PRIMARY KEY ("id")
    )`,
    `CREATE UNIQUE INDEX "site_asns_owner_id_target_id_uniq" ON ${s}."site_asns" ("owner_id", "target_id")`,
    `CREATE INDEX "site_asns_target_id_idx" ON ${s}."site_asns" ("target_id")`,
    `CREATE TABLE ${s}."_tagged_item" (
      "id" BIGSERIAL,
      "tag_id" BIGINT NOT NULL,
      "content_type" VARCHAR(100) NOT NULL,
      "object_id" BIGINT NOT NULL,
      PRIMARY KEY ("id")
    )`,
    `CREATE UNIQUE INDEX "_tagged_item_content_type_object_id_tag_id_uniq" ON ${s}."_tagged_item" ("content_type", "object_id", "tag_id")`,
    `CREATE INDEX "_tagged_item_tag_id_idx" ON ${s}."_tagged_item" ("tag_id")`,
    `CREATE TABLE ${s}."_idempotency_key" (
      "user_id" BIGINT NOT NULL,
      "key" VARCHAR(255) NOT NULL,
      "fingerprint" CHAR(64) NOT NULL,
      "status" INTEGER,
      "object_ids" BIGINT[],
      "bulk" BOOLEAN,
      "headers" JSONB,
      "body" TEXT,
      "created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "_idempotency_key_pkey" PRIMARY KEY ("user_id", "key")
    )`,
    `CREATE INDEX "_idempotency_key_created_idx" ON ${s}."_idempotency_key" ("created")`,
    `CREATE TABLE ${s}."_outbox" (
      "seq" BIGSERIAL PRIMARY KEY,
      "id" UUID NOT NULL,
      "event" VARCHAR(10) NOT NULL,
      "model" VARCHAR(100) NOT NULL,
      "object_id" BIGINT NOT NULL,
      "version" BIGINT NOT NULL,
      "timestamp" TIMESTAMP WITH TIME ZONE NOT NULL,
      "username" VARCHAR(150) NOT NULL,
      "request_id" VARCHAR(64) NOT NULL,
      "data" JSONB,
      "snapshots" JSONB NOT NULL,
      "sent_at" TIMESTAMP WITH TIME ZONE,
      "reference" JSONB
    )`,
    `CREATE UNIQUE INDEX "_outbox_id_uniq" ON ${s}."_outbox" ("id")`,
    `CREATE INDEX "_outbox_unsent_idx" ON ${s}."_outbox" ("seq") WHERE "sent_at" IS NULL`,
    `CREATE INDEX "_outbox_request_id_idx" ON ${s}."_outbox" ("request_id")`,
    `CREATE INDEX "_outbox_sent_at_idx" ON ${s}."_outbox" ("sent_at") WHERE "sent_at" IS NOT NULL`,
    // events the consumers applied (the projections of other services' objects)
    `CREATE TABLE ${s}."_processed_event" (
      "queue" VARCHAR(100) NOT NULL,
      "event_id" UUID NOT NULL,
      "processed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "_processed_event_pkey" PRIMARY KEY ("queue", "event_id")
    )`,
    `CREATE INDEX "_processed_event_processed_at_idx" ON ${s}."_processed_event" ("processed_at")`,
  ];
}

export const initial: Migration = {
  name: '0001_initial',
  up: ({ qi, schema }) => runStatements(qi, initialStatements(schema)),
};
