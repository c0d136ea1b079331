import { ValidationError } from '@inventory/core';
import { contentType } from '@inventory/refs';
import { type FilterDef } from '@inventory/filtering';
import { absoluteUrls, contentTypeIdFilter, defineModel, f, nestedFor, projectedModels, resolveRefs, type ModelDef, type Row } from '@inventory/rest';

/** Models with NetBox's full feature set (bookmarks among them): those with custom fields, outside extras. */
const bookmarkable = (label: string) => {
  const ct = contentType(label);
  return !!ct?.features.custom_fields && ct.app_label !== 'extras';
};

/**
 * Bookmarks (NetBox's extras.Bookmark, spec C.10): a user's mark on an
 * object of any service. NetBox's default permissions let every user view,
 * add, change and delete their own (`{"user": "$user"}`), so a list shows
 * the caller's only (a superuser's shows everyone's, as in NetBox); `user`
 * is the caller when omitted. `object` is the object's nested form, taken
 * from its owner when the bookmark is made and kept current from the
 * object's change events, so a list reads no other service; the object's
 * delete event deletes its bookmarks (bookmark-follower.ts).
 */
export const bookmark: ModelDef = defineModel({
  label: 'extras.bookmark',
  endpoint: 'bookmarks',
  table: 'bookmark',
  verboseName: 'bookmark',
  fields: {
    object_type: f.contentType({ required: true, allowed: bookmarkable }),
    object_id: { type: 'bigint', required: true, min: 0 },
    object: f.json({ readOnly: true, nullable: true, filter: false, orderable: false }),
    user: f.fk('auth.user', 'CASCADE', { filterKey: 'username' }),
    created: f.datetime({ readOnly: true }),
  },
  tags: false,
  customFields: false,
  timestamps: false,
  brief: ['object_id', 'object_type'],
  display: (row) => String((row.object as Row | null)?.display ?? `Bookmark object (${String(row.id)})`),
  ordering: ['created'],
  search: [],
  unique: [{ fields: ['object_type', 'object_id', 'user'], message: 'Bookmark with this Object type, Object id and User already exists.' }],
  // NetBox's MultiValueNumberFilter on the content type's id: `n`, `lt`, `lte`, `gt`, `gte`, `empty`
  filters: (): FilterDef[] => [contentTypeIdFilter('object_type_id', 'object_type', { numeric: true })],
  hooks: {
    async beforeSave(columns, existing, wctx) {
      if (!existing) {
        // the caller's bookmark unless the request names a user (a superuser may)
        if (!('user_id' in columns)) {
          if (!wctx.identity.user) throw ValidationError.field('user', 'This field is required.');
          columns.user_id = wctx.identity.user.id;
        }
        columns.created = new Date().toISOString();
      }
      if (!('object_type' in columns) && !('object_id' in columns)) return;
      const type = String(columns.object_type ?? existing?.object_type);
      const id = Number(columns.object_id ?? existing?.object_id);
      const missing = `Related object not found using the provided numeric ID: ${id}`;
      // an object extras keeps a copy of (a site, a tenant) may be newer than the copy: the owner is asked on a miss, and the copy kept
      if (projectedModels(wctx.service).has(type)) {
        const [resolved] = await resolveRefs(wctx.service, type, [id], wctx.tx);
        if ('error' in resolved) throw ValidationError.field('object_id', missing);
      }
      // the object's nested form, urls relative (rebased on read): this service's copy, or its owner's answer
      const found = (await nestedFor(wctx.service, type, [id], '', wctx.tx)).get(id);
      if (!found) throw ValidationError.field('object_id', missing);
      columns.object = found;
    },
    decorate(_rows, out, { base }) {
      for (const o of out) if (o.object) o.object = absoluteUrls(o.object, base);
    },
  },
});
