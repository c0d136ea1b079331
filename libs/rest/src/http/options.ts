import { type FieldDef, titleName, type ModelDef } from '../model';
import { placeConfigContext } from '../read';

type Info = Record<string, unknown>;

export function fieldLabel(name: string, field?: FieldDef): string {
  if (field?.label) return field.label.charAt(0).toUpperCase() + field.label.slice(1);
  if (name === 'id') return 'ID';
  const words = name.replace(/^_/, '').replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function optionType(field: FieldDef): string {
  switch (field.type) {
    case 'string':
    case 'text':
    case 'password':
    case 'color':
      return 'string';
    case 'slug':
      return 'slug';
    case 'email':
      return 'email';
    case 'url':
      return 'url';
    case 'integer':
    case 'bigint':
      return 'integer';
    case 'decimal':
      return 'decimal';
    case 'boolean':
      return 'boolean';
    case 'date':
      return 'date';
    case 'datetime':
      return 'datetime';
    case 'choice':
      return field.plain ? 'choice' : 'field';
    case 'fk':
      // DRF's PrimaryKeyRelatedField is a plain field in OPTIONS
      return field.pk ? 'field' : 'nested object';
    case 'array':
      return 'list';
    case 'cidr':
    case 'inet':
      return 'string';
    default:
      return 'field';
  }
}

function fieldInfo(name: string, field: FieldDef): Info {
  const info: Info = {
    type: optionType(field),
    required: !!field.required && field.default === undefined && !field.readOnly,
    read_only: !!field.readOnly,
    label: fieldLabel(name, field),
  };
  if (field.help) info.help_text = field.help;
  if ('maxLength' in field && field.maxLength) info.max_length = field.maxLength;
  if ('minLength' in field && field.minLength) info.min_length = field.minLength;
  if ('min' in field && field.min !== undefined) info.min_value = field.min;
  if ('max' in field && field.max !== undefined) info.max_value = field.max;
  if (field.type === 'choice' && !field.readOnly) info.choices = field.choices.map(([value, display_name]) => ({ value, display_name }));
  if (field.type === 'm2m') info.child = { type: field.write === 'nested' ? 'nested object' : 'field', required: true, read_only: false, label: fieldLabel(name) };
  return info;
}

/** The POST/PUT field map of OPTIONS, in serializer order. */
export function actionFields(model: ModelDef): Info {
  const out: Info = {
    id: { type: 'integer', required: false, read_only: true, label: 'ID' },
    url: { type: 'field', required: false, read_only: true, label: 'Url' },
    display: { type: 'field', required: false, read_only: true, label: 'Display' },
  };
  for (const [name, field] of Object.entries(model.fields)) {
    if (field.writeOnly && field.type !== 'password') continue;
    // a file part (DRF's ImageField): written, and required, through a multipart body
    out[name] = model.uploads?.includes(name) ? { type: 'image upload', required: true, read_only: false, label: fieldLabel(name, field) } : fieldInfo(name, field);
  }
  if (model.tags) {
    out.tags = { type: 'list', required: false, read_only: false, label: 'Tags', child: { type: 'nested object', required: true, read_only: false, label: 'Tags' } };
  }
  if (model.customFields) out.custom_fields = { type: 'field', required: false, read_only: false, label: 'Custom fields' };
  if (model.timestamps) {
    out.created = { type: 'datetime', required: false, read_only: true, label: 'Created' };
    out.last_updated = { type: 'datetime', required: false, read_only: true, label: 'Last updated' };
  }
  for (const name of Object.keys(model.counts)) out[name] = { type: 'integer', required: false, read_only: true, label: fieldLabel(name) };
  if (model.tree) out._depth = { type: 'integer', required: false, read_only: true, label: 'Depth' };
  return model.configContext ? placeConfigContext(model, out, { type: 'field', required: false, read_only: true, label: 'Config context' }) : out;
}

/** NetBox's metadata body; `actions` only for what the caller may do. */
export function optionsBody(model: ModelDef, allowed: { post: boolean; put: boolean }): Info {
  const body: Info = {
    name: titleName(model),
    description: model.description ?? '',
    renders: ['application/json', 'text/html'],
    parses: ['application/json', 'multipart/form-data'],
  };
  const actions: Info = {};
  const fields = actionFields(model);
  if (allowed.post) actions.POST = fields;
  if (allowed.put) actions.PUT = fields;
  if (Object.keys(actions).length) body.actions = actions;
  return body;
}
