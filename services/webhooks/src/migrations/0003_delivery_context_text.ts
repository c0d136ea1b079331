import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history: a delivery's context is kept as `json` (the text of the
 * default body, in NetBox's key order) instead of `jsonb`, so an attempt
 * sends it as stored. Never edit it; add a migration.
 */
export function deliveryContextTextStatements(schema: string): string[] {
  return [`ALTER TABLE "${schema}"."webhook_delivery" ALTER COLUMN "context" TYPE JSON USING "context"::json`];
}

export const deliveryContextText: Migration = {
  name: '0003_delivery_context_text',
  up: ({ qi, schema }) => runStatements(qi, deliveryContextTextStatements(schema)),
};
