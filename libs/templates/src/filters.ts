/**
 * Jinja2's filters (the ones NetBox templates use) on a liquidjs engine, with
 * Jinja's arguments (`join(', ')`, `default('x', true)`, `map(attribute='name')`)
 * and Python's printing of values.
 */
import type { Liquid } from 'liquidjs';
import { pyEquals, pyJsonDumps, pyStr } from './pyvalues';

type Args = unknown[];

/** Positional arguments and liquid's `[key, value]` keyword pairs for the names in `keywords`. */
function splitArgs(args: Args, keywords: string[]): { pos: unknown[]; kw: Record<string, unknown> } {
  const pos: unknown[] = [];
  const kw: Record<string, unknown> = {};
  for (const a of args) {
    if (Array.isArray(a) && a.length === 2 && typeof a[0] === 'string' && keywords.includes(a[0])) kw[a[0]] = a[1];
    else pos.push(a);
  }
  return { pos, kw };
}

function arg(args: Args, index: number, keyword: string, fallback: unknown): unknown {
  const { pos, kw } = splitArgs(args, [keyword]);
  return keyword in kw ? kw[keyword] : index < pos.length ? pos[index] : fallback;
}

function toList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return [...value];
  if (value && typeof value === 'object') return Object.keys(value);
  return [];
}

function attribute(item: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' && Object.hasOwn(o, k) ? (o as any)[k] : undefined), item);
}

function pyFalsy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  if (v && typeof v === 'object') return Object.keys(v).length === 0;
  return !v;
}

/** Jinja's filters, as NetBox users write them in templates, each named as Jinja names it. */
const filters: Record<string, (value: unknown, ...args: Args) => unknown> = {
  /** Jinja's `tojson`: sorted keys, and `<>&'` escaped for HTML (still valid JSON). */
  tojson: (value, ...args) => {
    const indent = arg(args, 0, 'indent', undefined);
    return pyJsonDumps(value, { sortKeys: true, indent: typeof indent === 'number' ? indent : undefined })
      .replace(/</g, '\\u003c')
      .replace(/>/g, '\\u003e')
      .replace(/&/g, '\\u0026')
      .replace(/'/g, '\\u0027');
  },
  upper: (value) => pyStr(value).toUpperCase(),
  lower: (value) => pyStr(value).toLowerCase(),
  title: (value) => pyStr(value).replace(/[\p{L}\p{N}']+/gu, (w) => w[0].toUpperCase() + w.slice(1).toLowerCase()),
  capitalize: (value) => {
    const s = pyStr(value);
    return s.slice(0, 1).toUpperCase() + s.slice(1).toLowerCase();
  },
  trim: (value, ...args) => {
    const chars = arg(args, 0, 'chars', null);
    const s = pyStr(value);
    if (typeof chars !== 'string') return s.trim();
    const set = new Set(chars);
    let a = 0;
    let b = s.length;
    while (a < b && set.has(s[a])) a++;
    while (b > a && set.has(s[b - 1])) b--;
    return s.slice(a, b);
  },
  length: (value) => (typeof value === 'string' ? [...value].length : toList(value).length),
  count: (value) => (typeof value === 'string' ? [...value].length : toList(value).length),
  /** `join(d='', attribute=None)`: items printed as Python does. */
  join: (value, ...args) => {
    const sep = pyStr(arg(args, 0, 'd', ''));
    const attr = arg(args, 1, 'attribute', null);
    return toList(value)
      .map((item) => pyStr(typeof attr === 'string' ? attribute(item, attr) : item))
      .join(sep);
  },
  /** `replace(old, new, count=None)`: every occurrence unless `count`. */
  replace: (value, ...args) => {
    const s = pyStr(value);
    const from = pyStr(arg(args, 0, 'old', ''));
    const to = pyStr(arg(args, 1, 'new', ''));
    const count = arg(args, 2, 'count', null);
    const parts = s.split(from);
    if (typeof count !== 'number' || count < 0 || count >= parts.length - 1) return parts.join(to);
    return parts.slice(0, count + 1).join(to) + from + parts.slice(count + 1).join(from);
  },
  /** `default(value='', boolean=False)`: only an undefined value is replaced, unless `boolean`. */
  default: (value, ...args) => {
    const fallback = arg(args, 0, 'default_value', '');
    const boolean = arg(args, 1, 'boolean', false);
    return value === undefined || (boolean && pyFalsy(value)) ? fallback : value;
  },
  /** `map(attribute='x')` or `map('filter')`. */
  map: (value, ...args) => {
    const { pos, kw } = splitArgs(args, ['attribute', 'default']);
    if (typeof kw.attribute === 'string') {
      return toList(value).map((item) => attribute(item, kw.attribute as string) ?? kw.default);
    }
    const filter = typeof pos[0] === 'string' ? filters[pos[0]] : undefined;
    if (!filter) throw new Error(`map: no filter named ${pyStr(pos[0])}`);
    return toList(value).map((item) => filter(item, ...pos.slice(1)));
  },
  first: (value) => toList(value)[0],
  last: (value) => toList(value).at(-1),
  list: (value) => toList(value),
  unique: (value) => toList(value).filter((item, i, all) => all.findIndex((o) => pyEquals(o, item)) === i),
  string: (value) => pyStr(value),
  int: (value, ...args) => {
    const n = typeof value === 'number' ? Math.trunc(value) : parseInt(pyStr(value).trim(), 10);
    return Number.isNaN(n) ? arg(args, 0, 'default', 0) : n;
  },
  float: (value, ...args) => {
    const n = typeof value === 'number' ? value : parseFloat(pyStr(value).trim());
    return Number.isNaN(n) ? arg(args, 0, 'default', 0) : n;
  },
  abs: (value) => Math.abs(Number(value)),
  safe: (value) => value,
};

/** Registers Jinja's filters (and `d`, `default`'s alias) on a liquidjs engine. */
export function registerJinjaFilters(liquid: Liquid): void {
  for (const [name, fn] of Object.entries(filters)) liquid.registerFilter(name, fn);
  liquid.registerFilter('d', filters.default);
}
