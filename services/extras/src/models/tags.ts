import { contentType, contentTypeById } from '@inventory/refs';
import { sql, raw, or, type FilterDef } from '@inventory/filtering';
import { defineModel, f, type ModelDef } from '@inventory/rest';

const taggable = (label: string) => !!contentType(label)?.features.tags;

export const tag: ModelDef = defineModel({
  label: 'extras.tag',
  endpoint: 'tags',
  verboseName: 'tag',
  fields: {
    name: f.name(100, { unique: 'tag with this name already exists.' }),
    slug: f.slug(100, { unique: 'tag with this slug already exists.' }),
    color: f.color({ default: '9e9e9e' }),
    description: f.description(),
    object_types: f.contentTypes({ allowed: taggable, default: [] }),
    tagged_items: f.integer({ readOnly: true, virtual: true }),
  },
  tags: false,
  customFields: false,
  brief: ['name', 'slug', 'color'],
  display: (r) => String(r.name),
  ordering: ['name'],
  search: ['name', 'slug', 'description'],
  skipFilters: ['object_types'],
  filters: (): FilterDef[] => {
    const byId = (v: string) => contentTypeById(Number(v))?.label ?? '';
    return [
      {
        kind: 'method',
        name: 'object_types',
        valueType: 'integer',
        apply: (values) => or(values.map((v) => sql`t.object_types @> ARRAY[${byId(v)}]::varchar[]`)),
      },
      {
        kind: 'method',
        name: 'for_object_type_id',
        valueType: 'integer',
        apply: (values) => {
          const label = byId(values[values.length - 1]);
          return sql`(cardinality(t.object_types) = 0 OR t.object_types @> ARRAY[${label}]::varchar[])`;
        },
      },
    ];
  },
});

export { raw };
