import type { Row } from './api';

/**
 * Turning an object's REST representation into the body that writes it
 * back, field by field as our OpenAPI request schema describes the field:
 * a related object becomes its id (ids are kept, so the id names the same
 * object on both sides), a choice `{value, label}` its value, a generic end
 * `{object_type, object_id, object}` its type and id. Both sides' objects go
 * through the same function, so comparing two bodies is comparing what a
 * write would change.
 */

export interface Schema {
  type?: string;
  oneOf?: Schema[];
  items?: Schema;
  enum?: unknown[];
  $ref?: string;
  properties?: Record<string, Schema>;
  writeOnly?: boolean;
}

/** Per list endpoint, its writable fields and their request schemas (from our `/api/schema/`). */
export type Writable = Map<string, Map<string, Schema>>;

export function writableFields(openapi: Row): Writable {
  const components = ((openapi.components as Row)?.schemas ?? {}) as Record<string, Schema>;
  const resolve = (s: Schema | undefined): Schema | undefined => (s?.$ref ? components[s.$ref.split('/').pop()!] : s);
  const out: Writable = new Map();
  for (const [path, item] of Object.entries((openapi.paths ?? {}) as Record<string, Row>)) {
    const post = item.post as Row | undefined;
    const content = ((post?.requestBody as Row | undefined)?.content ?? {}) as Record<string, { schema?: Schema }>;
    const schema = content['application/json']?.schema;
    const one = resolve(schema?.oneOf?.[0] ?? schema);
    if (!one?.properties) continue;
    out.set(path, new Map(Object.entries(one.properties).map(([k, v]) => [k, resolve(v) ?? v])));
  }
  return out;
}

const isObject = (v: unknown): v is Row => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A schema that takes an object's id (a primary key, or our integer-or-attributes reference). */
function takesId(s: Schema | undefined): boolean {
  if (!s) return false;
  if (s.type === 'integer' && !s.enum) return true;
  return !!s.oneOf?.some((o) => o.type === 'integer');
}

function valueOf(value: unknown, s: Schema | undefined): unknown {
  if (isObject(value)) {
    if ('id' in value && takesId(s)) return value.id;
    if ('value' in value && 'label' in value && !('id' in value)) return value.value; // a choice
    if ('object_type' in value && 'object_id' in value) return { object_type: value.object_type, object_id: value.object_id };
    return value;
  }
  if (Array.isArray(value) && s?.type === 'array') {
    const items = value.map((v) => valueOf(v, s.items));
    // a many-to-many list is a set: its order on either side means nothing
    return takesId(s.items) && items.every((v) => typeof v === 'number') ? (items as number[]).sort((a, b) => a - b) : items;
  }
  return value;
}

/** Custom field values: related objects (object and multi-object fields) as ids. */
export function customFieldsOf(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out: Row = {};
  for (const [k, v] of Object.entries(value)) {
    if (isObject(v) && 'id' in v) out[k] = v.id;
    else if (Array.isArray(v)) out[k] = v.map((o) => (isObject(o) && 'id' in o ? o.id : o));
    else out[k] = v;
  }
  return out;
}

/** The custom fields of a representation whose values name objects (object and multi-object fields): set in the second pass. */
export function objectCustomFields(rep: Row): string[] {
  const values = rep.custom_fields;
  if (!isObject(values)) return [];
  const names = (v: unknown) => isObject(v) && 'id' in v;
  return Object.keys(values).filter((k) => names(values[k]) || (Array.isArray(values[k]) && (values[k] as unknown[]).some(names)));
}

/** A body's custom fields split: those of `names` apart (null when none), the rest left in the body. */
export function splitCustomFields(body: Row, names: string[]): Row | null {
  if (!names.length || !isObject(body.custom_fields)) return null;
  const all = body.custom_fields;
  body.custom_fields = Object.fromEntries(Object.entries(all).filter(([k]) => !names.includes(k)));
  return Object.fromEntries(names.map((k) => [k, all[k] ?? null]));
}

/** The write body of a representation over `fields` (those it has). */
export function bodyOf(rep: Row, fields: Map<string, Schema>, only?: (name: string) => boolean): Row {
  const out: Row = {};
  for (const [name, schema] of fields) {
    if (!(name in rep) || (only && !only(name))) continue;
    out[name] = name === 'custom_fields' ? customFieldsOf(rep[name]) : valueOf(rep[name], schema);
  }
  return out;
}

/** JSON with sorted keys: equal values, equal text. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (isObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v));
}

/** The fields of `target`'s body that differ from `source`'s (what an update sends). */
export function changedFields(source: Row, target: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(source)) if (canonical(v) !== canonical(target[k])) out[k] = v;
  return out;
}
