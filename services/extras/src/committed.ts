import type { AfterCommit } from '@inventory/rest';
import { applyCustomFieldChanges } from './customfield-effects';
import { removeReplacedFiles } from './images/hooks';

/** The models whose definitions this instance caches (tags, custom fields and their choice sets). */
const CACHED = new Set(['extras.tag', 'extras.customfield', 'extras.customfieldchoiceset']);

/**
 * What an extras instance does once one of its writes committed, to state
 * of its own: its cached definitions are dropped at once (read your writes;
 * every other process drops them on the change events), a custom field's
 * change reaches the data of the objects it applies to, and image files
 * the write replaced or deleted go.
 */
export const extrasAfterCommit: AfterCommit = async (ctx, model, changes) => {
  if (CACHED.has(model.label)) ctx.extras.invalidate();
  if (model.label === 'extras.customfield') await applyCustomFieldChanges(ctx, changes);
  if (model.label === 'extras.imageattachment') await removeReplacedFiles(ctx, changes);
};
