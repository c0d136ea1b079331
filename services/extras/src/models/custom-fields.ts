import { ValidationError } from '@inventory/core';
import { contentType } from '@inventory/refs';
import { sql, type FilterDef } from '@inventory/filtering';
import { contentTypesIdFilter, defineModel, f, customFieldValueError, type ModelDef, type CustomFieldDef } from '@inventory/rest';

export const CUSTOM_FIELD_TYPES = [
  ['text', 'Text'],
  ['longtext', 'Text (long)'],
  ['integer', 'Integer'],
  ['decimal', 'Decimal'],
  ['boolean', 'Boolean (true/false)'],
  ['date', 'Date'],
  ['datetime', 'Date & time'],
  ['url', 'URL'],
  ['json', 'JSON'],
  ['select', 'Selection'],
  ['multiselect', 'Multiple selection'],
  ['object', 'Object'],
  ['multiobject', 'Multiple objects'],
] as const;

const DATA_TYPES: Record<string, string> = {
  integer: 'integer',
  decimal: 'decimal',
  boolean: 'boolean',
  json: 'object',
  object: 'object',
  multiselect: 'array',
  multiobject: 'array',
};

const supportsCustomFields = (label: string) => !!contentType(label)?.features.custom_fields;

/**
 * NetBox's `choice` (filter_by_choice: `extra_choices__overlap`): choice sets
 * whose extra choices hold one of the values, as a value or as a label
 * (PostgreSQL's overlap ignores the array's dimensions), case-sensitively;
 * the base choices are not searched. Blank values filter nothing.
 */
const choiceFilter: FilterDef = {
  kind: 'method',
  name: 'choice',
  apply: (values) => {
    const given = values.filter((v) => v !== '');
    if (!given.length) return undefined;
    return sql`EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(t.extra_choices) = 'array' THEN t.extra_choices ELSE '[]'::jsonb END) AS c(choice)
      WHERE jsonb_typeof(c.choice) = 'array' AND c.choice ?| ${given}::text[])`;
  },
};

export const choiceSet: ModelDef = defineModel({
  label: 'extras.customfieldchoiceset',
  endpoint: 'custom-field-choice-sets',
  table: 'custom_field_choice_set',
  verboseName: 'custom field choice set',
  fields: {
    name: f.name(100, { unique: true }),
    description: f.description(),
    base_choices: f.choice(
      [
        ['IATA', 'IATA (Airport codes)'],
        ['ISO_3166', 'ISO 3166 (Country codes)'],
        ['UN_LOCODE', 'UN/LOCODE (Location codes)'],
      ],
      { nullable: true },
    ),
    extra_choices: f.json({ required: true }),
    order_alphabetically: f.boolean(false),
    choices_count: f.integer({ readOnly: true, virtual: true }),
  },
  tags: false,
  customFields: false,
  brief: ['name', 'choices_count'],
  display: (r) => String(r.name),
  ordering: ['name'],
  search: ['name', 'description'],
  filters: () => [choiceFilter],
  hooks: {
    validate(row) {
      const extra = row.extra_choices;
      const valid =
        Array.isArray(extra) &&
        extra.every((c) => Array.isArray(c) && c.length === 2 && c.every((x) => typeof x === 'string' && x.length <= 100));
      if (!valid) throw ValidationError.field('extra_choices', 'Each choice must be a list of two strings: [value, label].');
      if (!row.base_choices && (extra as unknown[]).length === 0) throw new ValidationError({ __all__: ['Must define base or extra choices.'] });
      if (row.order_alphabetically) (extra as string[][]).sort((a, b) => a[0].localeCompare(b[0]));
    },
    decorate(rows, out) {
      rows.forEach((r, i) => {
        out[i].choices_count = (r.extra_choices as unknown[] | null)?.length ?? 0;
      });
    },
  },
});

export const customField: ModelDef = defineModel({
  label: 'extras.customfield',
  endpoint: 'custom-fields',
  table: 'custom_field',
  verboseName: 'custom field',
  fields: {
    content_types: f.contentTypes({ required: true, allowed: supportsCustomFields }),
    type: f.choice(CUSTOM_FIELD_TYPES, { default: 'text' }),
    object_type: f.contentType({ nullable: true }),
    data_type: f.string(20, { readOnly: true, virtual: true, filter: false }),
    name: f.name(50, {
      unique: true,
      pattern: { regex: /^[a-z0-9_]+$/i, message: 'Only alphanumeric characters and underscores are allowed.' },
    }),
    label: f.string(50),
    group_name: f.string(50),
    description: f.description(),
    required: f.boolean(false),
    search_weight: f.integer({ default: 1000, min: 0, max: 32767 }),
    filter_logic: f.choice(
      [
        ['disabled', 'Disabled'],
        ['loose', 'Loose'],
        ['exact', 'Exact'],
      ],
      { default: 'loose' },
    ),
    ui_visible: f.choice(
      [
        ['always', 'Always'],
        ['if-set', 'If set'],
        ['hidden', 'Hidden'],
      ],
      { default: 'always' },
    ),
    ui_editable: f.choice(
      [
        ['yes', 'Yes'],
        ['no', 'No'],
        ['hidden', 'Hidden'],
      ],
      { default: 'yes' },
    ),
    is_cloneable: f.boolean(false),
    default: f.json({ nullable: true }),
    weight: f.integer({ default: 100, min: 0, max: 32767 }),
    validation_minimum: f.integer({ nullable: true }),
    validation_maximum: f.integer({ nullable: true }),
    validation_regex: f.string(500),
    choice_set: f.fk('extras.customfieldchoiceset', 'PROTECT', { nullable: true, filterKey: 'name' }),
  },
  tags: false,
  customFields: false,
  brief: ['name'],
  display: (r) => (r.label ? String(r.label) : String(r.name).replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase())),
  ordering: ['group_name', 'weight', 'name'],
  search: ['name', 'label', 'group_name', 'description'],
  filters: () => [contentTypesIdFilter()],
  hooks: {
    validate(row, existing) {
      const type = String(row.type);
      const label = CUSTOM_FIELD_TYPES.find(([v]) => v === type)?.[1] ?? type;
      const errs: Record<string, string[]> = {};
      if (existing && existing.type !== row.type) errs.type = ['Changing the type of custom fields is not supported.'];
      if (String(row.name).includes('__')) errs.name = ['Double underscores are not permitted in custom field names.'];
      const isObject = type === 'object' || type === 'multiobject';
      if (isObject && !row.object_type) errs.object_type = ['Object fields must define an object type.'];
      if (!isObject && row.object_type) errs.object_type = [`${label} fields may not define an object type.`];
      const numeric = type === 'integer' || type === 'decimal';
      if (!numeric && row.validation_minimum !== null && row.validation_minimum !== undefined) {
        errs.validation_minimum = ['A minimum value may be set only for numeric fields'];
      }
      if (!numeric && row.validation_maximum !== null && row.validation_maximum !== undefined) {
        errs.validation_maximum = ['A maximum value may be set only for numeric fields'];
      }
      if (row.validation_regex && !['text', 'longtext', 'url'].includes(type)) {
        errs.validation_regex = ['Regular expression validation is supported only for text and URL fields'];
      }
      const selection = type === 'select' || type === 'multiselect';
      if (selection && !row.choice_set_id) errs.choice_set = ['Selection fields must specify a set of choices.'];
      if (!selection && row.choice_set_id) errs.choice_set = ['Choices may be set only on selection fields.'];
      if (row.default !== null && row.default !== undefined && !selection) {
        const def: CustomFieldDef = {
          id: 0,
          name: String(row.name),
          type,
          object_type: null,
          content_types: [],
          required: false,
          default: null,
          filter_logic: 'loose',
          validation_minimum: (row.validation_minimum as number | null) ?? null,
          validation_maximum: (row.validation_maximum as number | null) ?? null,
          validation_regex: String(row.validation_regex ?? ''),
          choices: [],
          choice_set_name: null,
        };
        const problem = customFieldValueError(def, row.default);
        if (problem) errs.default = [`Invalid default value "${JSON.stringify(row.default)}": ${problem}`];
      }
      if (Object.keys(errs).length) throw new ValidationError(errs);
    },
    decorate(rows, out, { brief }) {
      if (brief) return;
      rows.forEach((r, i) => {
        out[i].data_type = DATA_TYPES[String(r.type)] ?? 'string';
      });
    },
  },
});
