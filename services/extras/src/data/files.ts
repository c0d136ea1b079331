import { raw, sql } from '@inventory/filtering';
import type { Queryable, ServiceContext } from '@inventory/rest';

/** A data file's content as text (NetBox's `data_as_string`): null when it is not UTF-8. */
export async function fileText(ctx: ServiceContext, q: Queryable, fileId: number): Promise<{ path: string; sourceId: number; text: string | null } | null> {
  const [row] = await q.query(sql`
    SELECT f.path, f.source_id, d.data FROM ${raw(ctx.db.table('data_file'))} f LEFT JOIN ${raw(ctx.db.table('data_file_data'))} d ON d.file_id = f.id WHERE f.id = ${fileId}`);
  if (!row) return null;
  const data = row.data as Buffer | null;
  let text: string | null = null;
  if (data) {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(data);
    } catch {
      text = null;
    }
  }
  return { path: String(row.path), sourceId: Number(row.source_id), text };
}
