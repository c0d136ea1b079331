import type { ModelDef, Row } from '../model';

/**
 * Fast-mode representation objects. A full representation has twenty-odd
 * keys (a tenant: fields, tags, custom fields, timestamps, ten counts), set by
 * computed name; V8 turns an object that gains more than a dozen properties
 * that way into a hash table ("dictionary mode"), slower to fill and slower
 * for JSON.stringify. A constructor per model and field list that names
 * every key up front (in the order the representation shows them) keeps the
 * object's layout fixed: filling it and stringifying a page of 50 took half
 * the time in a micro-benchmark (0.25 → 0.12 ms).
 */
export type Shape = new () => Row;

/** By field list: fieldsFor keeps one list per model and mode, so a list names its model. */
const shapes = new WeakMap<readonly string[], Shape | null>();

/** The keys of a full representation, in order: id, url, display, the fields, then what only the full form shows. */
function fullKeys(model: ModelDef, names: readonly string[]): string[] {
  const keys = ['id', 'url', 'display', ...names];
  if (model.tags) keys.push('tags');
  if (model.customFields) keys.push('custom_fields');
  if (model.timestamps) keys.push('created', 'last_updated');
  keys.push(...Object.keys(model.counts));
  if (model.tree) keys.push('_depth');
  return [...new Set(keys)];
}

/**
 * The constructor of a model's full representation over `names` (one list
 * per model and mode, as fieldsFor keeps them), made once; null when a key
 * could not be a plain property.
 */
export function fullShape(model: ModelDef, names: readonly string[]): Shape | null {
  let shape = shapes.get(names);
  if (shape === undefined) {
    const keys = fullKeys(model, names);
    // a key that is an array index or __proto__ is no named property
    const plain = keys.every((k) => k !== '__proto__' && !/^\d+$/.test(k));
    // keys come from the declaration, each quoted as a string literal: `this["name"]` is a named store
    shape = plain ? (new Function(keys.map((k) => `this[${JSON.stringify(k)}] = undefined;`).join('\n')) as Shape) : null;
    // a plain object still (Object.prototype, `constructor` Object): only its layout is fixed
    if (shape) shape.prototype = Object.prototype;
    shapes.set(names, shape);
  }
  return shape;
}

/** Keys a shaped representation left unset are removed: the object has the keys the unshaped one would have. */
export function dropUnset(rep: Row): Row {
  for (const k in rep) if (rep[k] === undefined) delete rep[k];
  return rep;
}
