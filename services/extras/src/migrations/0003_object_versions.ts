import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history: a version on every object (raised by each write; the ETag of
 * its detail and the If-Match check), and the table that records the answers
 * of writes sent with an Idempotency-Key. Never edit it; add a migration.
 */
export function objectVersionStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `ALTER TABLE ${s}."tag" ADD COLUMN "_version" BIGINT NOT NULL DEFAULT 1`,
    `ALTER TABLE ${s}."custom_field_choice_set" ADD COLUMN "_version" BIGINT NOT NULL DEFAULT 1`,
    `ALTER TABLE ${s}."custom_field" ADD COLUMN "_version" BIGINT NOT NULL DEFAULT 1`,
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
  ];
}

export const objectVersions: Migration = {
  name: '0003_object_versions',
  up: ({ qi, schema }) => runStatements(qi, objectVersionStatements(schema)),
};
