import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): the ipam schema's
 * first part, RIRs, roles, route targets and VRFs, with the tables every
 * service has (tags, idempotency keys, the outbox, processed events).
 * Captured with libs/testkit/src/initial-ddl.ts. Never edit it and never
 * import the declarations here: change a declaration, then add a migration;
 * test/schema.test.ts fails until the migrations arrive at what the
 * declarations describe.
 */
export function initialStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE IF NOT EXISTS ${s}."rir" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "is_private" BOOLEAN, "description" VARCHAR(200) NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE TABLE IF NOT EXISTS ${s}."role" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE, "weight" INTEGER, "description" VARCHAR(200) NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE TABLE IF NOT EXISTS ${s}."route_target" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(21) NOT NULL DEFAULT '' UNIQUE, "tenant_id" BIGINT, "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "route_target_tenant_id_idx" ON ${s}."route_target" ("tenant_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."vrf" ("id"  BIGSERIAL , "_version" BIGINT NOT NULL DEFAULT 1, "name" VARCHAR(100) NOT NULL DEFAULT '', "rd" VARCHAR(21) UNIQUE, "tenant_id" BIGINT, "enforce_unique" BOOLEAN, "description" VARCHAR(200) NOT NULL DEFAULT '', "comments" TEXT NOT NULL DEFAULT '', "custom_field_data" JSONB NOT NULL DEFAULT '{}', "created" TIMESTAMP WITH TIME ZONE DEFAULT now(), "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(), PRIMARY KEY ("id"))`,
    `CREATE INDEX "vrf_tenant_id_idx" ON ${s}."vrf" ("tenant_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."vrf_import_targets" ("id"  BIGSERIAL , "owner_id" BIGINT NOT NULL REFERENCES ${s}."vrf" ("id") ON DELETE CASCADE, "target_id" BIGINT NOT NULL REFERENCES ${s}."route_target" ("id") ON DELETE CASCADE, PRIMARY KEY ("id"))`,
    `CREATE UNIQUE INDEX "vrf_import_targets_owner_id_target_id_uniq" ON ${s}."vrf_import_targets" ("owner_id", "target_id")`,
    `CREATE INDEX "vrf_import_targets_target_id_idx" ON ${s}."vrf_import_targets" ("target_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."vrf_export_targets" ("id"  BIGSERIAL , "owner_id" BIGINT NOT NULL REFERENCES ${s}."vrf" ("id") ON DELETE CASCADE, "target_id" BIGINT NOT NULL REFERENCES ${s}."route_target" ("id") ON DELETE CASCADE, PRIMARY KEY ("id"))`,
    `CREATE UNIQUE INDEX "vrf_export_targets_owner_id_target_id_uniq" ON ${s}."vrf_export_targets" ("owner_id", "target_id")`,
    `CREATE INDEX "vrf_export_targets_target_id_idx" ON ${s}."vrf_export_targets" ("target_id")`,
    `CREATE TABLE IF NOT EXISTS ${s}."_tagged_item" ("id"  BIGSERIAL , "tag_id" BIGINT NOT NULL, "content_type" VARCHAR(100) NOT NULL, "object_id" BIGINT NOT NULL, PRIMARY KEY ("id"))`,
    `CREATE UNIQUE INDEX "_tagged_item_content_type_object_id_tag_id_uniq" ON ${s}."_tagged_item" ("content_type", "object_id", "tag_id")`,
    `CREATE INDEX "_tagged_item_tag_id_idx" ON ${s}."_tagged_item" ("tag_id")`,
    `CREATE TABLE ${s}."_idempotency_key" (
    "user_id" BIGINT NOT NULL, "key" VARCHAR(255) NOT NULL, "fingerprint" CHAR(64) NOT NULL,
    "status" INTEGER, "object_ids" BIGINT[], "bulk" BOOLEAN, "headers" JSONB, "body" TEXT, "created" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
    CONSTRAINT "_idempotency_key_pkey" PRIMARY KEY ("user_id", "key"))`,
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
      "data" JSON,
      "snapshots" JSON NOT NULL,
      "sent_at" TIMESTAMP WITH TIME ZONE,
      "reference" JSON
    )`,
    `CREATE UNIQUE INDEX "_outbox_id_uniq" ON ${s}."_outbox" ("id")`,
    `CREATE INDEX "_outbox_unsent_idx" ON ${s}."_outbox" ("seq") WHERE "sent_at" IS NULL`,
    `CREATE INDEX "_outbox_request_id_idx" ON ${s}."_outbox" ("request_id")`,
    `CREATE INDEX "_outbox_sent_at_idx" ON ${s}."_outbox" ("sent_at") WHERE "sent_at" IS NOT NULL`,
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
