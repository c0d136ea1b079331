import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): the circuits
 * schema of its first release, providers, provider accounts and networks,
 * circuit types, circuits and circuit terminations, with the tables every
 * service has (tags, idempotency keys, the outbox, processed events). Never
 * edit it and never import the declarations here: change a declaration,
 * then add a migration; test/schema.test.ts fails until the migrations
 * arrive at what the declarations describe.
 */
export function initialStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE ${s}."provider" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "comments" TEXT NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE TABLE ${s}."provider_account" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "provider_id" BIGINT NOT NULL REFERENCES ${s}."provider" ("id") ON DELETE RESTRICT,
      "name" VARCHAR(100) NOT NULL DEFAULT '',
      "account" VARCHAR(100) NOT NULL DEFAULT '',
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "comments" TEXT NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "provider_account_provider_id_idx" ON ${s}."provider_account" ("provider_id")`,
    `CREATE UNIQUE INDEX "provider_account_provider_id_account_uniq" ON ${s}."provider_account" ("provider_id", "account")`,
    // a name is unique per provider only when given
    `CREATE UNIQUE INDEX "provider_account_provider_id_name_where_name_not_blank_uniq" ON ${s}."provider_account" ("provider_id", "name") WHERE "name" <> ''`,
    `CREATE TABLE ${s}."provider_network" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "provider_id" BIGINT NOT NULL REFERENCES ${s}."provider" ("id") ON DELETE RESTRICT,
      "name" VARCHAR(100) NOT NULL DEFAULT '',
      "service_id" VARCHAR(100) NOT NULL DEFAULT '',
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "comments" TEXT NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "provider_network_provider_id_idx" ON ${s}."provider_network" ("provider_id")`,
    `CREATE UNIQUE INDEX "provider_network_provider_id_name_uniq" ON ${s}."provider_network" ("provider_id", "name")`,
    `CREATE TABLE ${s}."circuit_type" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "color" VARCHAR(6) NOT NULL DEFAULT '',
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    // tenant_id names a tenancy tenant: another service's object, so no foreign key
    `CREATE TABLE ${s}."circuit" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "cid" VARCHAR(100) NOT NULL DEFAULT '',
      "provider_id" BIGINT NOT NULL REFERENCES ${s}."provider" ("id") ON DELETE RESTRICT,
      "provider_account_id" BIGINT REFERENCES ${s}."provider_account" ("id") ON DELETE RESTRICT,
      "type_id" BIGINT NOT NULL REFERENCES ${s}."circuit_type" ("id") ON DELETE RESTRICT,
      "status" VARCHAR(50) NOT NULL,
      "tenant_id" BIGINT,
      "install_date" DATE,
      "termination_date" DATE,
      "commit_rate" INTEGER,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "comments" TEXT NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "circuit_provider_id_idx" ON ${s}."circuit" ("provider_id")`,
    `CREATE INDEX "circuit_provider_account_id_idx" ON ${s}."circuit" ("provider_account_id")`,
    `CREATE INDEX "circuit_type_id_idx" ON ${s}."circuit" ("type_id")`,
    `CREATE INDEX "circuit_tenant_id_idx" ON ${s}."circuit" ("tenant_id")`,
    `CREATE UNIQUE INDEX "circuit_provider_id_cid_uniq" ON ${s}."circuit" ("provider_id", "cid")`,
    `CREATE UNIQUE INDEX "circuit_provider_account_id_cid_uniq" ON ${s}."circuit" ("provider_account_id", "cid")`,
    // site_id names a dcim site: another service's object, so no foreign key
    `CREATE TABLE ${s}."circuit_termination" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "circuit_id" BIGINT NOT NULL REFERENCES ${s}."circuit" ("id") ON DELETE CASCADE,
      "term_side" VARCHAR(50) NOT NULL,
      "site_id" BIGINT,
      "provider_network_id" BIGINT REFERENCES ${s}."provider_network" ("id") ON DELETE RESTRICT,
      "port_speed" INTEGER,
      "upstream_speed" INTEGER,
      "xconnect_id" VARCHAR(50) NOT NULL DEFAULT '',
      "pp_info" VARCHAR(100) NOT NULL DEFAULT '',
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "mark_connected" BOOLEAN,
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "circuit_termination_circuit_id_idx" ON ${s}."circuit_termination" ("circuit_id")`,
    `CREATE INDEX "circuit_termination_site_id_idx" ON ${s}."circuit_termination" ("site_id")`,
    `CREATE INDEX "circuit_termination_provider_network_id_idx" ON ${s}."circuit_termination" ("provider_network_id")`,
    `CREATE UNIQUE INDEX "circuit_termination_circuit_id_term_side_uniq" ON ${s}."circuit_termination" ("circuit_id", "term_side")`,
    // target_id names an ipam ASN: another service's object, so no foreign key
    `CREATE TABLE ${s}."provider_asns" (
      "id" BIGSERIAL,
      "owner_id" BIGINT NOT NULL REFERENCES ${s}."provider" ("id") ON DELETE CASCADE,
      "target_id" BIGINT NOT NULL,
      PRIMARY KEY ("id")
    )`,
    `CREATE UNIQUE INDEX "provider_asns_owner_id_target_id_uniq" ON ${s}."provider_asns" ("owner_id", "target_id")`,
    `CREATE INDEX "provider_asns_target_id_idx" ON ${s}."provider_asns" ("target_id")`,
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
