import { contentTypeById } from '@inventory/refs';
import { ident, or, sql, type FilterDef } from '@inventory/filtering';

/** NetBox's filters by content type id, for models that name content types (custom fields, webhooks, export templates, …). */

/** `content_type_id` (and `__n`): objects whose `content_types` include the content type of one of these ids (NetBox's `content_types__id`). */
export function contentTypesIdFilter(): FilterDef {
  return {
    kind: 'method',
    name: 'content_type_id',
    lookups: ['n'],
    valueType: 'integer',
    apply: (values, lookup) => {
      const match = or(values.map((v) => sql`t.content_types @> ARRAY[${contentTypeById(Number(v))?.label ?? ''}]::varchar[]`));
      return lookup === 'n' ? sql`NOT ${match}` : match;
    },
  };
}

/** `<name>=<content type id>` (and `__n`): objects whose one content-type `column` is one of those models (what is attached to objects of them). */
export function contentTypeIdFilter(name: string, column: string): FilterDef {
  return {
    kind: 'method',
    name,
    lookups: ['n'],
    valueType: 'integer',
    apply: (values, lookup) => {
      const labels = values.map((v) => contentTypeById(Number(v))?.label ?? '');
      const match = sql`t.${ident(column)} = ANY(${labels}::text[])`;
      return lookup === 'n' ? sql`NOT ${match}` : match;
    },
  };
}
