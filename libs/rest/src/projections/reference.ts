import type { Reference } from '@inventory/events';
import { columnOf, fieldOf, type ModelDef, type Row, naturalColumn } from '../model';

/**
 * An object as other services refer to it (the `reference` of its change
 * events and of the owner's snapshot): what a referring service keeps in its
 * projection, so that it renders, filters and sorts by the reference without
 * asking the owner.
 */

/** The nested representation, taken from the full one: id, url, display and the declared nested fields. */
export function nestedOf(model: ModelDef, rep: Row): Row {
  const out: Row = { id: rep.id, url: rep.url, display: rep.display };
  for (const name of model.brief) {
    if (name in model.counts) continue; // annotations of lists, not part of a nested object
    if (name in rep) out[name] = rep[name];
  }
  return model.hooks.nested ? model.hooks.nested(out) : out;
}

/** `url`s made relative to the API root (`/api/...`): the base is the reader's, not the writer's. */
export function relativeUrls<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => relativeUrls(v)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Row = {};
  for (const [k, v] of Object.entries(value as Row)) {
    out[k] = k === 'url' && typeof v === 'string' ? pathOf(v) : relativeUrls(v);
  }
  return out as T;
}

/** `url`s made absolute again on the reader's base. */
export function absoluteUrls<T>(value: T, base: string): T {
  if (Array.isArray(value)) return value.map((v) => absoluteUrls(v, base)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Row = {};
  for (const [k, v] of Object.entries(value as Row)) {
    out[k] = k === 'url' && typeof v === 'string' && v.startsWith('/') ? `${base}${v}` : absoluteUrls(v, base);
  }
  return out as T;
}

function pathOf(url: string): string {
  if (url.startsWith('/')) return url;
  // `<scheme>://<host>/<path>`: cut at the first slash after the authority (no URL parse: this runs per nested object of every event)
  const authority = url.indexOf('://');
  if (authority < 0) return url;
  const slash = url.indexOf('/', authority + 3);
  if (slash < 0) return '/';
  const end = url.search(/[?#]/);
  return end > slash ? url.slice(slash, end) : url.slice(slash);
}

/** Numbers sort as text once padded (to 20 digits, the width of a bigint). */
function sortable(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value).padStart(20, '0');
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/** The values of the model's default ordering for one stored row (its tree order for trees). */
export function sortKeyOf(model: ModelDef, row: Row): string[] {
  const out: string[] = [];
  for (const term of model.ordering) {
    const name = term.replace(/^-/, '');
    if (name === '_tree') {
      out.push(...((row._tree_sort as string[] | null) ?? []).map(String));
      continue;
    }
    const field = fieldOf(model, name);
    const column = field ? (naturalColumn(name, field) ?? columnOf(name, field)) : name === 'id' ? 'id' : null;
    if (column) out.push(sortable(row[column]));
  }
  return out;
}

/** The reference of one stored row with its full representation. */
export function referenceOf(model: ModelDef, row: Row, rep: Row | undefined): Reference {
  return {
    nested: rep ? relativeUrls(nestedOf(model, rep)) : null,
    sort: sortKeyOf(model, row),
    ...(model.tree && Array.isArray(row._path) ? { path: (row._path as unknown[]).map(Number) } : {}),
  };
}
