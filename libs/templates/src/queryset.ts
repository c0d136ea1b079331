import { PyObject } from './pyobject';

type Row = Record<string, unknown>;

/** How one field of a representation reads in a template: a choice's value, or a related object (of a Python class). */
export type FieldShape = { kind: 'choice' } | { kind: 'related'; cls: string } | { kind: 'related-list'; cls: string };

/** An export's objects as plain data (what crosses to a template worker), with how to read their fields. */
export interface ExportObjects {
  rows: Row[];
  shape: Record<string, FieldShape>;
  /** The model's Python class name (`Device`), for `repr()`. */
  cls: string;
}

/**
 * The `queryset` an export template reads, as NetBox's model instances:
 * `{{ device.name }}`, `{{ device.status }}` (the stored value, not
 * `{value, label}`), `{{ device.site }}` (the site's name) and
 * `{{ device.site.slug }}`, `{{ device.tags }}`, `{{ device.cf.x }}`.
 * A related object shared by many rows (a site of 10,000 devices) is one
 * object.
 */
export function exportQueryset(objects: ExportObjects): PyObject[] {
  const shared = new Map<string, PyObject>();
  return objects.rows.map((rep) => templateObject(rep, objects.shape, objects.cls, shared));
}

export function templateObject(rep: Row, shape: Record<string, FieldShape>, cls: string, shared?: Map<string, PyObject>): PyObject {
  // made whole by one spread, then values replaced in place: adding fifty keys one by one would leave V8's fast properties (5x the memory)
  const attrs: Row = { pk: rep.id, ...rep, cf: rep.custom_fields };
  for (const [key, value] of Object.entries(rep)) {
    const field = shape[key] ?? (key === 'tags' ? ({ kind: 'related-list', cls: 'Tag' } as const) : undefined);
    if (!field) continue;
    if (field.kind === 'choice') attrs[key] = value && typeof value === 'object' ? (value as Row).value : value;
    else if (field.kind === 'related') attrs[key] = related(value, field.cls, shared);
    else if (Array.isArray(value)) attrs[key] = value.map((v) => related(v, field.cls, shared));
  }
  return PyObject.of(attrs, String(rep.display ?? ''), cls);
}

/** A related object as a model instance: its nested attributes, printed as its display; one instance per object when `shared` is given. */
function related(value: unknown, kind: string, shared?: Map<string, PyObject>): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value ?? null;
  const o = value as Row;
  const key = `${kind}:${String(o.url ?? o.id)}`;
  const known = shared?.get(key);
  if (known) return known;
  const made = PyObject.of({ pk: o.id, ...o }, String(o.display ?? ''), kind);
  shared?.set(key, made);
  return made;
}
