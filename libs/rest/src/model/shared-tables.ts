import type { QueryInterface } from 'sequelize';
import { outboxStatements, processedEventStatements } from '@inventory/events';
import { IDEMPOTENCY_TABLE, TAGGED_ITEM_TABLE, runStatements, type Migration } from './schema';

/**
 * The tables every service has besides its models': tagged items, the
 * answers of writes sent with an Idempotency-Key, the outbox and the events
 * its consumers applied. Their DDL is the library's, in one migration of its
 * own that each service lists after its first (`sharedTables`), so a new
 * service does not copy it. Frozen like every migration
 * (docs/decisions/005): a change to these tables is a new migration here,
 * listed by every service, never a copy in each. Services released before
 * it created the tables in their own history; there it finds them and
 * leaves them be.
 */
function sharedTableDdl(schema: string): { table: string; statements: string[] }[] {
  const s = `"${schema}"`;
  return [
    {
      table: TAGGED_ITEM_TABLE,
      statements: [
        `CREATE TABLE ${s}."${TAGGED_ITEM_TABLE}" (
          "id" BIGSERIAL,
          "tag_id" BIGINT NOT NULL,
          "content_type" VARCHAR(100) NOT NULL,
          "object_id" BIGINT NOT NULL,
          PRIMARY KEY ("id")
        )`,
        `CREATE UNIQUE INDEX "_tagged_item_content_type_object_id_tag_id_uniq" ON ${s}."${TAGGED_ITEM_TABLE}" ("content_type", "object_id", "tag_id")`,
        `CREATE INDEX "_tagged_item_tag_id_idx" ON ${s}."${TAGGED_ITEM_TABLE}" ("tag_id")`,
      ],
    },
    {
      table: IDEMPOTENCY_TABLE,
      statements: [
        `CREATE TABLE ${s}."${IDEMPOTENCY_TABLE}" (
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
        `CREATE INDEX "_idempotency_key_created_idx" ON ${s}."${IDEMPOTENCY_TABLE}" ("created")`,
      ],
    },
    // change events waiting for the relay, and the events this service's consumers applied (libs/events)
    { table: '_outbox', statements: outboxStatements(schema) },
    { table: '_processed_event', statements: processedEventStatements(schema) },
  ];
}

/** Every shared table's DDL, in order (what the declarations' schema has besides the models'). */
export function sharedTableStatements(schema: string): string[] {
  return sharedTableDdl(schema).flatMap((t) => t.statements);
}

/** The shared tables a schema lacks, created in one transaction. */
async function createMissing(qi: QueryInterface, schema: string): Promise<void> {
  const missing: string[] = [];
  for (const { table, statements } of sharedTableDdl(schema)) {
    const [[found]] = (await qi.sequelize.query('SELECT to_regclass($1) IS NOT NULL AS present', { bind: [`"${schema}"."${table}"`] })) as [{ present: boolean }[], unknown];
    if (!found.present) missing.push(...statements);
  }
  if (missing.length) await runStatements(qi, missing);
}

/** The library's migration of the shared tables: each service lists it after its first migration. */
export const sharedTables: Migration = { name: 'shared_0001_tables', up: ({ qi, schema }) => createMissing(qi, schema) };
