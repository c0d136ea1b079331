import { contentTypeById } from '@inventory/refs';
import { sql, or, type FilterDef } from '@inventory/filtering';

/** `content_type_id`: objects whose `content_types` include the content type of one of these ids (NetBox's `content_types__id`). */
export function contentTypeIdFilter(): FilterDef {
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
