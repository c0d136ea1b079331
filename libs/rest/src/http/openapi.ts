import { lookupsFor, type FilterDef } from '@inventory/filtering';
import { type FieldDef, titleName, type ModelDef } from '../model';
import { fieldsFor, isTimestamp } from '../read';

type Schema = Record<string, unknown>;

export function schemaName(model: ModelDef): string {
  return model.schemaName ?? titleName(model).replace(/[^A-Za-z0-9]/g, '');
}

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullableRef = (name: string): Schema => ({ allOf: [ref(name)], nullable: true });
const LOOSE_OBJECT: Schema = {
  type: 'object',
  properties: { id: { type: 'integer' }, url: { type: 'string', format: 'uri' }, display: { type: 'string' } },
  required: ['id', 'url', 'display'],
  additionalProperties: true,
};

/** Response schema of one field, from the same declaration as the serializer. */
function readSchema(field: FieldDef, local: Map<string, ModelDef>, brief: boolean): Schema {
  const n = (s: Schema): Schema => (field.nullable ? { ...s, nullable: true } : s);
  switch (field.type) {
    case 'string':
    case 'text':
    case 'slug':
    case 'email':
    case 'url':
    case 'color':
    case 'password':
      return n({ type: 'string', ...(field.maxLength ? { maxLength: field.maxLength } : {}) });
    case 'integer':
    case 'bigint':
      return n({ type: 'integer' });
    case 'decimal':
      return n({ type: 'number' });
    case 'boolean':
      return n({ type: 'boolean' });
    case 'date':
      return n({ type: 'string', format: 'date' });
    case 'datetime':
      return n({ type: 'string', format: 'date-time' });
    case 'json':
      return { nullable: true };
    case 'choice': {
      const values = field.choices.map(([v]) => v);
      const valueType = typeof values[0] === 'number' ? 'integer' : 'string';
      // a blank plain choice (a cable's type) reads as ''
      if (field.plain || (brief && field.briefPlain)) return n({ type: valueType, enum: field.blank ? [...values, ''] : values });
      return {
        type: 'object',
        properties: { value: { type: valueType, enum: values }, label: { type: 'string' } },
        required: ['value', 'label'],
        nullable: !field.required || !!field.blank || !!field.nullable,
      };
    }
    case 'fk': {
      if (field.pk) return n({ type: 'integer' });
      if (brief && field.readAs) return n({ type: field.readAs === 'id' ? 'integer' : 'string' });
      const target = local.get(field.to);
      const nested = target ? `Brief${schemaName(target)}` : null;
      if (!nested) return { ...LOOSE_OBJECT, nullable: !!field.nullable };
      return field.nullable ? nullableRef(nested) : ref(nested);
    }
    case 'm2m': {
      if ((brief && field.readAs) || field.write === 'slug') return { type: 'array', items: { type: 'string' } };
      const target = local.get(field.to);
      return { type: 'array', items: target ? ref(`Brief${schemaName(target)}`) : LOOSE_OBJECT };
    }
    case 'contenttype':
      return field.many ? { type: 'array', items: { type: 'string' } } : n({ type: 'string' });
    case 'generic':
      return { type: 'object', nullable: true, additionalProperties: true };
    case 'array':
      return { type: 'array', items: { type: field.of } };
    case 'cidr':
    case 'inet':
      return n({ type: 'string' });
  }
}

function writeSchema(field: FieldDef): Schema {
  const n = (s: Schema): Schema => (field.nullable ? { ...s, nullable: true } : s);
  switch (field.type) {
    case 'fk':
      if (field.pk) return n({ type: 'integer' });
      return n({ oneOf: [{ type: 'integer' }, { type: 'object', additionalProperties: true }] });
    case 'm2m':
      if (field.write === 'slug') return { type: 'array', items: { type: 'string' } };
      return { type: 'array', items: field.write === 'pk' ? { type: 'integer' } : { oneOf: [{ type: 'integer' }, { type: 'object' }] } };
    case 'choice': {
      const values = field.choices.map(([v]) => v);
      return { type: typeof values[0] === 'number' ? 'integer' : 'string', enum: field.blank ? [...values, ''] : values };
    }
    default: {
      const s = readSchema(field, new Map(), false);
      return { ...s, ...(field.type === 'password' ? { writeOnly: true } : {}) };
    }
  }
}

function objectSchema(model: ModelDef, local: Map<string, ModelDef>, mode: 'full' | 'brief'): Schema {
  const properties: Record<string, Schema> = {
    id: { type: 'integer', readOnly: true },
    url: { type: 'string', format: 'uri', readOnly: true },
    display: { type: 'string', readOnly: true },
  };
  const required = ['id', 'url', 'display'];
  for (const name of fieldsFor(model, mode)) {
    const field = model.fields[name];
    if (!field) {
      // a brief form's timestamp (isTimestamp), else a count or `_depth`
      properties[name] = isTimestamp(model, name) ? { type: 'string', format: 'date-time', nullable: true, readOnly: true } : { type: 'integer', readOnly: true };
      if (name === '_depth') required.push(name);
      continue;
    }
    properties[name] = readSchema(field, local, mode === 'brief');
    required.push(name);
  }
  if (mode === 'full') {
    if (model.tags) {
      properties.tags = { type: 'array', items: ref('BriefTag') };
      required.push('tags');
    }
    if (model.customFields) {
      properties.custom_fields = { type: 'object', additionalProperties: true };
      required.push('custom_fields');
    }
    if (model.timestamps) {
      properties.created = { type: 'string', format: model.createdAsDate ? 'date' : 'date-time', nullable: true, readOnly: true };
      properties.last_updated = { type: 'string', format: 'date-time', nullable: true, readOnly: true };
      required.push('created', 'last_updated');
    }
    for (const name of Object.keys(model.counts)) properties[name] = { type: 'integer', readOnly: true };
    // omitted with ?exclude=config_context, so not required
    if (model.configContext) properties.config_context = { type: 'object', additionalProperties: true, readOnly: true };
    if (model.tree) {
      properties._depth = { type: 'integer', readOnly: true };
      required.push('_depth');
    }
  }
  return { type: 'object', properties, required: [...new Set(required)] };
}

function requestSchema(model: ModelDef, partial: boolean): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(model.fields)) {
    if (model.uploads?.includes(name)) {
      // a file part of a multipart body
      properties[name] = { type: 'string', format: 'binary' };
      if (!partial) required.push(name);
      continue;
    }
    if (field.readOnly || field.virtual) continue;
    properties[name] = writeSchema(field);
    if (!partial && field.required && field.default === undefined) required.push(name);
  }
  if (model.tags) properties.tags = { type: 'array', items: { oneOf: [{ type: 'integer' }, { type: 'object', additionalProperties: true }] } };
  if (model.customFields) properties.custom_fields = { type: 'object', additionalProperties: true };
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

function parameterSchema(def: FilterDef, lookup: string | null): Schema {
  if (lookup === 'empty') return { type: 'boolean' };
  switch (def.kind) {
    case 'integer':
      return { type: 'array', items: { type: 'integer' } };
    case 'decimal':
      return { type: 'array', items: { type: 'number' } };
    case 'date':
      return { type: 'array', items: { type: 'string', format: 'date' } };
    case 'datetime':
      return { type: 'array', items: { type: 'string', format: 'date-time' } };
    case 'boolean':
      return { type: 'boolean' };
    case 'choice':
      return { type: 'array', items: { type: typeof def.choices[0] === 'number' ? 'integer' : 'string' } };
    case 'relation':
      return { type: 'array', items: { type: def.keyType === 'integer' ? 'integer' : 'string' } };
    default:
      return { type: 'array', items: { type: def.kind === 'method' && def.valueType === 'integer' ? 'integer' : 'string' } };
  }
}

/** `fields=` and `omit=` (NetBox 4.x), on list and detail reads (see read-options.ts). */
const FIELD_PARAMETERS: Schema[] = [
  {
    name: 'fields',
    in: 'query',
    required: false,
    description:
      'Comma-separated fields to return (repeatable); only they are computed. `<field>.<key>` returns only that key of a related object (one level). Unknown names are ignored.',
    schema: { type: 'string' },
  },
  { name: 'omit', in: 'query', required: false, description: 'Comma-separated fields to leave out (not computed). Ignored when `fields` is given.', schema: { type: 'string' } },
];

/** `as_of` (ours, read/as-of.ts), on every GET: the answer as the inventory stood at that moment. */
export const AS_OF_PARAMETER: Schema = {
  name: 'as_of',
  in: 'query',
  required: false,
  description:
    'Read as of this moment (ISO 8601; no zone: UTC): the same answer as the inventory gave then, deleted objects included as they were. In the future, before history starts, or malformed: 400. Not on writes (400).',
  schema: { type: 'string', format: 'date-time' },
};

/** `from` and `to` of a diff (ISO 8601; `to` defaults to now). */
const DIFF_PARAMETERS: Schema[] = [
  { name: 'from', in: 'query', required: true, description: 'Start of the period (ISO 8601).', schema: { type: 'string', format: 'date-time' } },
  { name: 'to', in: 'query', required: false, description: 'End of the period (ISO 8601); now when absent.', schema: { type: 'string', format: 'date-time' } },
];

/** Read options of a list beyond NetBox 3.7 (see read-options.ts). */
const READ_PARAMETERS: Schema[] = [
  ...FIELD_PARAMETERS,
  { name: 'count', in: 'query', required: false, description: 'false: do not count the matching objects (`count` is null).', schema: { type: 'boolean' } },
  {
    name: 'start',
    in: 'query',
    required: false,
    description: 'Cursor pagination as NetBox 4.6: objects with an id at or above this one, in id order; `next` carries the next start, `count` and `previous` are null. Not with `offset`.',
    schema: { type: 'integer', minimum: 0 },
  },
  {
    name: 'cursor',
    in: 'query',
    required: false,
    description:
      'Keyset pagination in the requested ordering: empty for the first page, then the opaque value of the `next` link; `count` and `previous` are null. Not with `offset` or `start`. An invalid cursor is a 400.',
    schema: { type: 'string' },
  },
];

/** Saved filters and exports, on every list (saved-filters.ts, export.ts). */
const LIST_ACTION_PARAMETERS: Schema[] = [
  {
    name: 'filter_id',
    in: 'query',
    required: false,
    description:
      "Saved filters by id (repeatable): their parameters are added to the query's. Each must be enabled, be for this model and be shared or the caller's; otherwise a 400 names it.",
    schema: { type: 'array', items: { type: 'integer' } },
    explode: true,
    style: 'form',
  },
  {
    name: 'filter',
    in: 'query',
    required: false,
    description: 'Saved filters by slug (repeatable), as `filter_id`.',
    schema: { type: 'array', items: { type: 'string' } },
    explode: true,
    style: 'form',
  },
  {
    name: 'export',
    in: 'query',
    required: false,
    description:
      "Every matching object (no paging) rendered by the export template of this name for this model (404 when there is none), answered with the template's MIME type, as an attachment when the template says so. Empty or `table`: CSV of the list's fields.",
    schema: { type: 'string' },
  },
];

/** Query parameters of a list endpoint: every filter and each of its lookups. */
export function listParameters(filters: FilterDef[]): Schema[] {
  const params: Schema[] = [
    { name: 'limit', in: 'query', required: false, description: 'Number of results to return per page.', schema: { type: 'integer' } },
    { name: 'offset', in: 'query', required: false, description: 'The initial index from which to return the results.', schema: { type: 'integer' } },
    { name: 'ordering', in: 'query', required: false, description: 'Which field to use when ordering the results.', schema: { type: 'string' } },
    { name: 'brief', in: 'query', required: false, description: 'Return the minimal representation.', schema: { type: 'boolean' } },
    { name: 'exclude', in: 'query', required: false, schema: { type: 'string' } },
    ...READ_PARAMETERS,
    ...LIST_ACTION_PARAMETERS,
    AS_OF_PARAMETER,
  ];
  const seen = new Set(params.map((p) => p.name));
  for (const def of filters) {
    for (const lookup of [null, ...lookupsFor(def)]) {
      const name = lookup ? `${def.name}__${lookup}` : def.name;
      if (seen.has(name)) continue;
      seen.add(name);
      const schema = parameterSchema(def, lookup);
      params.push({ name, in: 'query', required: false, schema, ...(schema.type === 'array' ? { explode: true, style: 'form' } : {}) });
    }
  }
  return params;
}

const ERRORS: Schema = {
  '400': { description: 'Invalid input', content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } },
  '403': { description: 'Permission denied', content: { 'application/json': { schema: ref('Detail') } } },
};

/** Paths and component schemas of one model, merged by the gateway into /api/schema/. */
export function modelOpenApi(model: ModelDef, area: string, local: Map<string, ModelDef>, filters: FilterDef[]): { paths: Schema; schemas: Schema } {
  const name = schemaName(model);
  const schemas: Schema = {
    [name]: objectSchema(model, local, 'full'),
    [`Brief${name}`]: objectSchema(model, local, 'brief'),
    [`${name}Request`]: requestSchema(model, false),
    [`Patched${name}Request`]: requestSchema(model, true),
    // count is null with count=false, start= and cursor=
    [`Paginated${name}List`]: pageSchema(ref(name), { nullableCount: true }),
  };
  const d = describing(model, area, filters);
  const paths: Schema = { [d.list]: listPath(d), [d.detail]: detailPath(d), ...diffPaths(d) };
  return { paths, schemas };
}

/** What the paths of one model are written from. */
interface Described {
  model: ModelDef;
  name: string;
  tag: string;
  filters: FilterDef[];
  list: string;
  detail: string;
  idParam: Schema;
  /** An operation id: `<area>_<endpoint>_<suffix>`. */
  op: (suffix: string) => string;
}

function describing(model: ModelDef, area: string, filters: FilterDef[]): Described {
  const list = `/api/${area}/${model.endpoint}/`;
  return {
    model,
    name: schemaName(model),
    tag: area.charAt(0).toUpperCase() + area.slice(1),
    filters,
    list,
    detail: `${list}{id}/`,
    idParam: { name: 'id', in: 'path', required: true, schema: { type: 'integer' }, description: `A unique integer value identifying this ${model.verboseName}.` },
    op: (suffix) => `${area}_${model.endpoint.replace(/-/g, '_')}_${suffix}`,
  };
}

const json = (schema: Schema) => ({ 'application/json': { schema } });
const NOT_FOUND = { '404': { description: 'Not found', content: json(ref('Detail')) } };
const DEPENDENT = { '409': { description: 'Dependent objects', content: json(ref('Detail')) } };

/** A request body: JSON, and for a model with file fields also one object as multipart/form-data. */
function writes(model: ModelDef, schema: Schema, one: Schema): Schema {
  return { ...json(schema), ...(model.uploads?.length ? { 'multipart/form-data': { schema: one } } : {}) };
}

/** The list path: GET, and unless read-only the create and the bulk writes. */
function listPath({ model, name, tag, filters, op }: Described): Schema {
  const get = { operationId: op('list'), tags: [tag], parameters: listParameters(filters), responses: { '200': { description: '', content: json(ref(`Paginated${name}List`)) }, ...ERRORS } };
  if (model.readOnly) return { get };
  const many = (item: string) => json({ type: 'array', items: ref(item) });
  return {
    get,
    post: {
      operationId: op('create'),
      tags: [tag],
      requestBody: { required: true, content: writes(model, { oneOf: [ref(`${name}Request`), { type: 'array', items: ref(`${name}Request`) }] }, ref(`${name}Request`)) },
      responses: { '201': { description: '', content: json({ oneOf: [ref(name), { type: 'array', items: ref(name) }] }) }, ...ERRORS },
    },
    put: { operationId: op('bulk_update'), tags: [tag], requestBody: { required: true, content: many(`${name}Request`) }, responses: { '200': { description: '', content: many(name) }, ...ERRORS } },
    patch: { operationId: op('bulk_partial_update'), tags: [tag], requestBody: { required: true, content: many(`Patched${name}Request`) }, responses: { '200': { description: '', content: many(name) }, ...ERRORS } },
    delete: {
      operationId: op('bulk_destroy'),
      tags: [tag],
      requestBody: { required: true, content: json({ type: 'array', items: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } }) },
      responses: { '204': { description: 'Deleted' }, ...ERRORS, ...DEPENDENT },
    },
  };
}

/** The detail path: GET, and unless read-only PUT, PATCH and DELETE. */
function detailPath({ model, name, tag, idParam, op }: Described): Schema {
  const one = { '200': { description: '', content: json(ref(name)) }, ...ERRORS, ...NOT_FOUND };
  const get = { operationId: op('retrieve'), tags: [tag], parameters: [idParam, ...FIELD_PARAMETERS, AS_OF_PARAMETER], responses: one };
  if (model.readOnly) return { get };
  return {
    get,
    put: { operationId: op('update'), tags: [tag], parameters: [idParam], requestBody: { required: true, content: writes(model, ref(`${name}Request`), ref(`${name}Request`)) }, responses: one },
    patch: { operationId: op('partial_update'), tags: [tag], parameters: [idParam], requestBody: { content: writes(model, ref(`Patched${name}Request`), ref(`Patched${name}Request`)) }, responses: one },
    delete: { operationId: op('destroy'), tags: [tag], parameters: [idParam], responses: { '204': { description: 'Deleted' }, ...ERRORS, ...NOT_FOUND, ...DEPENDENT } },
  };
}

/** What changed between two moments (diff.ts): the list's and one object's. */
function diffPaths({ tag, filters, list, detail, idParam, op }: Described): Schema {
  const options = ['as_of', 'export', 'fields', 'omit', 'count', 'start', 'cursor', 'brief', 'exclude', 'ordering'];
  const listFilters = listParameters(filters).filter((p) => !options.includes(String(p.name)));
  return {
    [`${list}diff/`]: {
      get: {
        operationId: op('diff_list'),
        description: 'The objects of the list (its filters, matched at either moment) whose fields changed between `from` and `to`, in id order, paged.',
        tags: [tag],
        parameters: [...DIFF_PARAMETERS, ...listFilters],
        responses: { '200': { description: '', content: json(ref('PaginatedObjectDiffList')) }, ...ERRORS },
      },
    },
    [`${detail}diff/`]: {
      get: {
        operationId: op('diff_retrieve'),
        description: 'What changed on this object between `from` and `to`: each changed field with its two values; created and deleted objects as such.',
        tags: [tag],
        parameters: [idParam, ...DIFF_PARAMETERS],
        responses: { '200': { description: '', content: json(ref('ObjectDiff')) }, ...ERRORS, ...NOT_FOUND },
      },
    },
  };
}

const OBJECT_DIFF: Schema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    url: { type: 'string', format: 'uri' },
    display: { type: 'string' },
    action: { type: 'string', enum: ['created', 'deleted', 'updated', 'unchanged'] },
    changes: {
      type: 'object',
      additionalProperties: { type: 'object', properties: { from: { nullable: true }, to: { nullable: true } }, required: ['from', 'to'] },
    },
  },
  required: ['id', 'action', 'changes'],
};

/**
 * A page of a list as NetBox answers it (`count`, `next`, `previous`,
 * `results` of `items`), with `extra` properties before the results.
 */
export function pageSchema(items: Schema, o: { nullableCount?: boolean; extra?: Schema } = {}): Schema {
  return {
    type: 'object',
    required: ['count', 'results'],
    properties: {
      count: { type: 'integer', ...(o.nullableCount ? { nullable: true } : {}) },
      next: { type: 'string', nullable: true, format: 'uri' },
      previous: { type: 'string', nullable: true, format: 'uri' },
      ...o.extra,
      results: { type: 'array', items },
    },
  };
}

/** Schemas every document shares. */
export const COMMON_SCHEMAS: Schema = {
  Detail: { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] },
  ObjectDiff: { ...OBJECT_DIFF, properties: { from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' }, ...(OBJECT_DIFF.properties as Schema) } },
  PaginatedObjectDiffList: pageSchema(OBJECT_DIFF, { extra: { from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' } } }),
  BriefTag: {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      url: { type: 'string', format: 'uri' },
      display: { type: 'string' },
      name: { type: 'string' },
      slug: { type: 'string' },
      color: { type: 'string' },
    },
    required: ['id', 'url', 'display', 'name', 'slug', 'color'],
  },
};
