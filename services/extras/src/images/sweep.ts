import { periodic, type ModelDef, type ServiceContext, type Worker } from '@inventory/rest';
import { namedFiles } from './hooks';
import type { MediaStore } from './store';

/** Files younger than this may belong to an upload still in flight (on this replica or another sharing the folder). */
const GRACE_MS = 3_600_000;

/**
 * Removes stored files that no attachment names, at start and hourly: what
 * a process left when it stopped between storing a file and the commit, or
 * between a delete's commit and the file's removal.
 */
export function imageSweeper(ctx: ServiceContext, model: ModelDef, store: MediaStore): Worker {
  const sweep = async () => {
    try {
      const removed = await store.sweep((names) => namedFiles(ctx, model, names), GRACE_MS);
      if (removed.length) ctx.log.info({ files: removed.length }, 'image attachments: files no attachment names removed');
    } catch (err) {
      ctx.log.warn({ err: (err as Error).message }, 'image attachments: sweep failed');
    }
  };
  return periodic(sweep, GRACE_MS);
}
