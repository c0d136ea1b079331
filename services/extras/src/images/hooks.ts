import { contentType } from '@inventory/refs';
import { sql, raw } from '@inventory/filtering';
import type { ModelDef, ServiceContext } from '@inventory/rest';
import { lockStoredName } from './routes';
import type { MediaStore } from './store';
import { ImageUpload } from './upload';

/** `<file>` without its extension: the extension stored is the image's real type's. */
const stemOf = (filename: string) => {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
};

/** The stored names of files the rows name. */
export async function namedFiles(ctx: ServiceContext, model: ModelDef, stored: string[]): Promise<Set<string>> {
  if (!stored.length) return new Set();
  const rows = await ctx.db.query(sql`SELECT image FROM ${raw(ctx.db.table(model.table))} WHERE image = ANY(${stored}::text[])`);
  return new Set(rows.map((r) => String(r.image)));
}

/**
 * The file side of an image attachment's writes. The file is stored inside
 * the write's transaction, once the row is (its name comes from the row:
 * `<model>_<object id>_<name or file name>.<real extension>`), and its name
 * and dimensions go in the row; a write that does not commit leaves a file
 * no row names, which the upload route removes after the answer
 * (routes.ts). Files a committed write replaced or deleted go after the
 * commit, whatever deleted the row (the API, the parent's delete event).
 */
export function attachImageHooks(model: ModelDef, store: MediaStore): void {
  const table = (ctx: ServiceContext) => raw(ctx.db.table(model.table));
  model.hooks.afterSave = async (id, body, _existing, wctx) => {
    const upload = body.image;
    if (!(upload instanceof ImageUpload)) return;
    const [row] = await wctx.tx.query(sql`SELECT content_type, object_id, name FROM ${table(wctx.service)} WHERE id = ${id}`);
    const ct = contentType(String(row.content_type));
    // NetBox names the file after the attachment's name when it has one
    const stem = `${ct?.model ?? 'object'}_${String(row.object_id)}_${row.name ? String(row.name) : stemOf(upload.filename)}`;
    const stored = await store.save(stem, upload.kind.ext, upload.data);
    // held until the write ends: the upload's clean-up waits for the outcome before it looks for the row
    await lockStoredName(wctx.tx, model, stored);
    upload.stored.push(stored);
    await wctx.tx.query(
      sql`UPDATE ${table(wctx.service)} SET image = ${stored}, image_height = ${upload.height}, image_width = ${upload.width} WHERE id = ${id}`,
    );
  };
  model.hooks.afterCommit = async (ctx, changes) => {
    const gone = changes.flatMap((c) => (c.before?.image && c.before.image !== c.after?.image ? [String(c.before.image)] : []));
    if (!gone.length) return;
    // committed: a file that cannot be removed now is left to the sweep at start, the write stands
    await store.remove(gone).catch((err) => ctx.log.warn({ err: (err as Error).message, files: gone }, 'image attachments: files not removed'));
  };
}
