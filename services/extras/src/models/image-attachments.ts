import { ValidationError } from '@inventory/core';
import type { FilterDef } from '@inventory/filtering';
import { contentTypeIdFilter, defineModel, f, type ModelDef, type Row, type WriteContext } from '@inventory/rest';
import { imageFileHooks } from '../images/hooks';
import { IMAGE_ERRORS, ImageUpload } from '../images/upload';
import { journaled, parentExists, printedType } from './attached';

/**
 * NetBox 3.7 takes an image for an object of any model, but only the models
 * that declare the GenericRelation (sites, racks, devices ...) delete their
 * images with them. Here the NetBox models (those with a journal, which
 * extras projects) are the parents: every one of them deletes its images.
 */
export const attachable = journaled;

/** The file part of the stored name: `<model>_<id>_<file>` → `<file>` (NetBox's str() without a name). */
function fileOf(stored: unknown): string {
  const file = String(stored ?? '').split('/').pop() ?? '';
  return file.split('_').slice(2).join('_') || file;
}

/** ImageAttachmentSerializer.validate: a file on create, a parent that exists (checked first), then one that takes images. */
async function checkAttachment(data: Row, existing: Row | null, wctx: WriteContext, body: Row): Promise<void> {
  const given = Object.prototype.hasOwnProperty.call(body, 'image');
  if (given && !(body.image instanceof ImageUpload)) throw new ValidationError({ image: [IMAGE_ERRORS.notAFile] });
  if (!existing && !given) throw new ValidationError({ image: [IMAGE_ERRORS.required] });
  if (existing && existing.content_type === data.content_type && String(existing.object_id) === String(data.object_id)) return;
  const type = String(data.content_type);
  if ((await parentExists(wctx, type, data.object_id, attachable)) === false) {
    throw new ValidationError({ non_field_errors: [`Invalid parent object: ${printedType(type)} ID ${String(data.object_id)}`] });
  }
  if (!attachable(type)) throw new ValidationError({ __all__: [`Image attachments cannot be assigned to this object type (${printedType(type)}).`] });
}

/**
 * Image attachments (NetBox's extras.ImageAttachment, §C.10): an image file
 * on an object of any service. Written as multipart/form-data (the `image`
 * file part beside the fields; images/routes.ts reads it); `image` reads as
 * the file's URL under /media/, `image_height` / `image_width` as read from
 * the file. The file is stored once the row is (afterSave) and removed with
 * the row (afterCommit), whatever deletes it: its parent's delete event
 * (projection-feed.ts), a delete of the attachment, a new image. Those hooks
 * (images/hooks.ts) use the media store of the instance (`ctx.own`).
 */
export const imageAttachment: ModelDef = defineModel({
  label: 'extras.imageattachment',
  endpoint: 'image-attachments',
  table: 'image_attachment',
  verboseName: 'image attachment',
  fields: {
    content_type: f.contentType({ required: true }),
    object_id: { type: 'bigint', required: true, min: 0 },
    parent: f.generic('content_type', 'object_id', { allowed: attachable }),
    name: f.string(50),
    // the stored name (`image-attachments/<file>`), read as the file's URL
    image: f.string(100, { readOnly: true, filter: false }),
    image_height: f.integer({ readOnly: true, min: 0, max: 32767 }),
    image_width: f.integer({ readOnly: true, min: 0, max: 32767 }),
  },
  uploads: ['image'],
  tags: false,
  customFields: false,
  brief: ['name', 'image'],
  display: (row) => (row.name ? String(row.name) : fileOf(row.image)),
  ordering: ['name', 'id'],
  search: ['name'],
  filters: (): FilterDef[] => [contentTypeIdFilter('content_type_id', 'content_type')],
  hooks: {
    ...imageFileHooks,
    validate: (data, existing, wctx, body) => checkAttachment(data, existing, wctx, body),
    decorate(_rows, out, { base }) {
      for (const o of out) if ('image' in o) o.image = o.image ? `${base}/media/${String(o.image)}` : null;
    },
  },
});
