import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): the webhooks
 * schema of its first release, the webhook records and the delivery log,
 * with the tables every service has (tags, idempotency keys, the outbox,
 * processed events). Never edit it and never import the declarations here:
 * change a declaration, then add a migration; test/schema.test.ts fails
 * until the migrations arrive at what the declarations describe.
 */
export function initialStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE ${s}."webhook" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "content_types" VARCHAR(100)[] NOT NULL,
      "name" VARCHAR(150) NOT NULL DEFAULT '' UNIQUE,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "type_create" BOOLEAN,
      "type_update" BOOLEAN,
      "type_delete" BOOLEAN,
      "payload_url" VARCHAR(500) NOT NULL DEFAULT '',
      "enabled" BOOLEAN,
      "http_method" VARCHAR(50),
      "http_content_type" VARCHAR(100) NOT NULL DEFAULT '',
      "additional_headers" TEXT NOT NULL DEFAULT '',
      "body_template" TEXT NOT NULL DEFAULT '',
      "secret" VARCHAR(255),
      "conditions" JSONB,
      "ssl_verification" BOOLEAN,
      "ca_file_path" VARCHAR(4096),
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    // one row per webhook and event: a redelivered event finds its delivery
    `CREATE TABLE ${s}."webhook_delivery" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "webhook_id" BIGINT NOT NULL REFERENCES ${s}."webhook" ("id") ON DELETE CASCADE,
      "event_id" VARCHAR(36) NOT NULL DEFAULT '',
      "event" VARCHAR(50) NOT NULL,
      "object_type" VARCHAR(100) NOT NULL DEFAULT '',
      "object_id" BIGINT NOT NULL,
      "request_id" VARCHAR(64) NOT NULL DEFAULT '',
      "status" VARCHAR(50) NOT NULL,
      "attempts" JSONB NOT NULL,
      "attempt_count" INTEGER NOT NULL,
      "next_attempt_at" TIMESTAMP WITH TIME ZONE,
      "context" JSONB,
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "webhook_delivery_webhook_id_idx" ON ${s}."webhook_delivery" ("webhook_id")`,
    `CREATE UNIQUE INDEX "webhook_delivery_webhook_id_event_id_uniq" ON ${s}."webhook_delivery" ("webhook_id", "event_id")`,
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
