import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): NetBox 3.7's
 * event rules (`extras.eventrule`), and the delivery log's event rule. A
 * delivery is unique per webhook and event among the webhook's own
 * triggers' (rule null), and per webhook, event and rule among the rules'
 * (docs/decisions/027-event-rules.md). Never edit it; add a migration.
 */
export function eventRuleStatements(schema: string): string[] {
  const s = `"${schema}"`;
  const d = `${s}."webhook_delivery"`;
  return [
    `CREATE TABLE ${s}."event_rule" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "content_types" VARCHAR(100)[] NOT NULL,
      "name" VARCHAR(150) NOT NULL DEFAULT '' UNIQUE,
      "type_create" BOOLEAN,
      "type_update" BOOLEAN,
      "type_delete" BOOLEAN,
      "type_job_start" BOOLEAN,
      "type_job_end" BOOLEAN,
      "enabled" BOOLEAN,
      "conditions" JSONB,
      "action_type" VARCHAR(50),
      "action_object_type" VARCHAR(100) NOT NULL,
      "action_object_id" BIGINT,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "event_rule_action_object_type_action_object_id_idx" ON ${s}."event_rule" ("action_object_type", "action_object_id")`,
    `ALTER TABLE ${d} ADD COLUMN "event_rule_id" BIGINT REFERENCES ${s}."event_rule" ("id") ON DELETE CASCADE`,
    `CREATE INDEX "webhook_delivery_event_rule_id_idx" ON ${d} ("event_rule_id")`,
    `DROP INDEX ${s}."webhook_delivery_webhook_id_event_id_uniq"`,
    `CREATE UNIQUE INDEX "webhook_delivery_webhook_id_event_id_where_event__00360e47_uniq" ON ${d} ("webhook_id", "event_id") WHERE "event_rule_id" IS NULL`,
    `CREATE UNIQUE INDEX "webhook_delivery_webhook_id_event_id_event_rule_id_uniq" ON ${d} ("webhook_id", "event_id", "event_rule_id")`,
  ];
}

export const eventRules: Migration = {
  name: '0005_event_rules',
  up: ({ qi, schema }) => runStatements(qi, eventRuleStatements(schema)),
};
