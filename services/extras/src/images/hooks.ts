import { contentType } from '@inventory/refs';
import { sql, raw } from '@inventory/filtering';
import type { Change, ModelDef, ModelHooks, Row, ServiceContext, WriteContext } from '@inventory/rest';
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
export const imageFileHooks: Pick<ModelHooks, 'afterSave'> = {
  async afterSave(saved, wctx) {
    for (const { id, body } of saved) await storeUpload(id, body, wctx);
  },
};

/** After the commit (committed.ts): the files of the attachments the write replaced or deleted. */
export async function removeReplacedFiles(ctx: ServiceContext, changes: Change[]): Promise<void> {
  const gone = changes.flatMap((c) => (c.before?.image && c.before.image !== c.after?.image ? [String(c.before.image)] : []));
  if (!gone.length) return;
  // committed: a file that cannot be removed now is left to the sweep at start, the write stands
  await mediaStoreOf(ctx)
    .remove(gone)
    .catch((err) => ctx.log.warn({ err: (err as Error).message, files: gone }, 'image attachments: files not removed'));
}

/** An uploaded image goes in the store once its row is, under a name from the row. */
async function storeUpload(id: number, body: Row, wctx: WriteContext): Promise<void> {
  const upload = body.image;
  if (!(upload instanceof ImageUpload)) return;
  const model = attachmentModel(wctx.service);
  const [row] = await wctx.tx.query(sql`SELECT content_type, object_id, name FROM ${raw(wctx.service.db.table(model.table))} WHERE id = ${id}`);
  const ct = contentType(String(row.content_type));
  // NetBox names the file after the attachment's name when it has one
  const stem = `${ct?.model ?? 'object'}_${String(row.object_id)}_${row.name ? String(row.name) : stemOf(upload.filename)}`;
  const stored = await mediaStoreOf(wctx.service).save(stem, upload.kind.ext, upload.data);
  // held until the write ends: the upload's clean-up waits for the outcome before it looks for the row
  await lockStoredName(wctx.tx, model, stored);
  upload.stored.push(stored);
  await wctx.tx.query(
    sql`UPDATE ${raw(wctx.service.db.table(model.table))} SET image = ${stored}, image_height = ${upload.height}, image_width = ${upload.width} WHERE id = ${id}`,
  );
}

/** What an extras instance holds of its own (`ctx.own`): its media store. */
export interface ExtrasOwn {
  store: MediaStore;
}

/** The media store of the extras instance serving `ctx`. */
export function mediaStoreOf(ctx: ServiceContext): MediaStore {
  const own = ctx.own as ExtrasOwn | undefined;
  if (!own?.store) throw new Error(`${ctx.name} has no media store`);
  return own.store;
}

const attachmentModel = (ctx: ServiceContext): ModelDef => ctx.models.get('extras.imageattachment')!;
