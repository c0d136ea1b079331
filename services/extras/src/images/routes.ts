import { promises as fs } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Express, NextFunction, Request, Response } from 'express';
import { NotFound } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { hashKey, identityOf, requirePermission, type ModelDef, type ServiceContext, type Tx } from '@inventory/rest';
import { mimeOf } from './sniff';
import { ATTACHMENT_DIR, type MediaStore } from './store';
import { ImageUpload, isMultipart, readImageForm } from './upload';

const LIST_PATH = '/api/extras/image-attachments/';
const WRITES = new Set(['POST', 'PUT', 'PATCH']);

/** The requests whose body the upload route reads (a multipart write of an attachment): the JSON reader leaves them alone. */
export const readsImageForm = (req: Request): boolean => WRITES.has(req.method) && req.path.startsWith(LIST_PATH) && isMultipart(req);

/**
 * Held by the write that stored a file until its transaction ends, and taken
 * by the clean-up before it looks for the row: the clean-up never sees a
 * row that is about to commit as missing.
 */
export async function lockStoredName(tx: Tx, model: ModelDef, stored: string): Promise<void> {
  await tx.query(sql`SELECT pg_advisory_xact_lock(${hashKey(model.label)}::int, ${hashKey(stored)}::int)`);
}

export interface ImageRouteOptions {
  model: ModelDef;
  store: MediaStore;
  maxImageSize: number;
}

/**
 * The file side of the image attachment endpoints: multipart writes read
 * into the body the model's handlers take (POST of the list, PUT and PATCH
 * of one), and the files served back under /media/.
 */
export function mountImageRoutes(app: Express, ctx: ServiceContext, opts: ImageRouteOptions): void {
  const { model, store } = opts;
  const table = raw(ctx.db.table(model.table));

  /** After the answer: files this request stored that no row names (the write failed, or was run again) are removed. */
  const dropUnnamed = async (upload: ImageUpload) => {
    for (const stored of upload.stored) {
      const named = await ctx.db.transaction(async (tx) => {
        await lockStoredName(tx, model, stored);
        return (await tx.query(sql`SELECT 1 FROM ${table} WHERE image = ${stored}`)).length > 0;
      });
      if (!named) await store.remove([stored]);
    }
  };

  app.use(async (req: Request, res: Response, next: NextFunction) => {
    if (!readsImageForm(req)) return next();
    // refused before the upload is read, as the handler would refuse it
    requirePermission(ctx, model, identityOf(res), req.method === 'POST' ? 'add' : 'change');
    req.body = await readImageForm(req, opts.maxImageSize);
    const upload = req.body.image;
    if (upload instanceof ImageUpload) {
      res.once('close', () => void dropUnnamed(upload).catch((err) => ctx.log.warn({ err: (err as Error).message }, 'image attachments: upload not cleaned up')));
    }
    next();
  });

  app.get(`/media/${ATTACHMENT_DIR}/:file`, async (req: Request, res: Response) => {
    const stored = `${ATTACHMENT_DIR}/${String(req.params.file)}`;
    const file = store.pathOf(stored);
    const mime = mimeOf(stored);
    if (!file || !mime) throw new NotFound();
    // the file of an attachment the caller may see (its view permission and constraints)
    const scope = requirePermission(ctx, model, identityOf(res), 'view');
    const [row] = await ctx.db.query(sql`SELECT 1 FROM ${table} t WHERE t.image = ${stored} AND ${scope}`);
    if (!row) throw new NotFound();
    const handle = await fs.open(file, 'r').catch(() => null);
    if (!handle) throw new NotFound();
    try {
      const { size } = await handle.stat();
      res.status(200);
      // the type the bytes were checked to be, never sniffed again, never run
      res.setHeader('Content-Type', mime);
      res.setHeader('Content-Length', String(size));
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Content-Disposition', `inline; filename="${String(req.params.file)}"`);
      res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
      res.setHeader('Cache-Control', 'private, max-age=3600');
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      await pipeline(handle.createReadStream({ autoClose: false }), res);
    } finally {
      await handle.close();
    }
  });
}
