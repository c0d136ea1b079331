import type { Row, ModelDef } from '../model';

/**
 * Which keys of an object's full representation a read shows: NetBox 4.x's
 * dynamic fields (`fields=`, `omit=`), see read-options.ts. Pure: the
 * serializer and the query planner both ask it.
 */
export interface FieldSelection {
  /** Keys shown whole (`fields=`); null when only `omit=` applies. */
  include: Set<string> | null;
  /** Keys shown as a part of their value (`fields=tenant.name`: `tenant` shows only `name`). */
  nested: Map<string, Set<string>>;
  /** Keys left out (`omit=`; empty with `fields=`, which wins as in NetBox). */
  omit: Set<string>;
}

/** Whether a key of the full representation is shown (and so computed); no selection shows everything. */
export function wants(select: FieldSelection | null | undefined, key: string): boolean {
  if (!select) return true;
  if (select.include) return select.include.has(key) || select.nested.has(key);
  return !select.omit.has(key);
}

/** Sets an own key, whatever its name (`__proto__` included: a plain assignment would set the prototype). */
function put(out: Row, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** An object (or each object of a list) cut to some of its keys; anything else as it is (null stays null). */
function pick(value: unknown, keys: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => pick(v, keys));
  if (value === null || typeof value !== 'object') return value;
  const out: Row = {};
  for (const [k, v] of Object.entries(value as Row)) if (keys.has(k)) put(out, k, v);
  return out;
}

/** The representation cut to the selection, keys in the representation's own order. */
export function project(rep: Row, select: FieldSelection): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(rep)) {
    if (!wants(select, key)) continue;
    const part = select.include && !select.include.has(key) ? select.nested.get(key) : undefined;
    put(out, key, part ? pick(value, part) : value);
  }
  return out;
}

/**
 * Whether a model's `display` reads the representation besides the row: a
 * display declared with two parameters (`(row, rep) => …`) may name related
 * objects; one declared with one reads the row alone.
 */
export function displayReadsRep(model: Pick<ModelDef, 'display'>): boolean {
  return model.display.length >= 2;
}

/**
 * The declared fields a representation computes under a selection: the
 * shown ones; all of them when `display` is shown and reads the
 * representation (it may name any: a related object, a choice's label).
 */
export function fieldsToCompute(model: ModelDef, names: readonly string[], select: FieldSelection | null | undefined): readonly string[] {
  if (!select || (wants(select, 'display') && displayReadsRep(model))) return names;
  return names.filter((n) => wants(select, n));
}
