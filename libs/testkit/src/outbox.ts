import pg from 'pg';

export interface OutboxRow {
  event: string;
  model: string;
  object_id: number;
  request_id: string;
  username: string;
  data: Record<string, unknown> | null;
  snapshots: { prechange: Record<string, unknown> | null; postchange: Record<string, unknown> | null };
}

/** A service's outbox rows in write order (its change events, whether relayed yet or not). */
export async function readOutbox(databaseUrl: string, schema: string): Promise<OutboxRow[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT event, model, object_id::int AS object_id, request_id, username, data, snapshots FROM "${schema.replace(/"/g, '""')}"."_outbox" ORDER BY seq`,
    );
    return rows as OutboxRow[];
  } finally {
    await client.end();
  }
}
