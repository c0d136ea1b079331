/**
 * Python's view of JSON values, where a webhook's output has to match what
 * NetBox (Python) produces: `json.dumps` text (default body, Jinja's
 * `tojson`), `str()` of a value (what `{{ value }}` prints) and `==` (the
 * condition language's `eq`, `in`, `contains`).
 */

import { PyObject } from './pyobject';

export interface DumpsOptions {
  /** `sort_keys=True` (Jinja's `tojson` policy). */
  sortKeys?: boolean;
  /** `indent=N`: newline and N spaces per level, `","` between items. */
  indent?: number;
}

/** `json.dumps(value)` with Python's defaults: `", "` and `": "` separators, `ensure_ascii=True`. */
export function pyJsonDumps(value: unknown, options: DumpsOptions = {}): string {
  if (options.indent === undefined && !options.sortKeys) return compactDumps(value);
  return treeDumps(value, options);
}

/** `json.dumps` built value by value: every option, and the reference the compact form is tested against. */
export function treeDumps(value: unknown, options: DumpsOptions = {}): string {
  return dump(value, options, 0);
}

/**
 * The plain case (every default body): the engine's own JSON.stringify, then
 * Python's separators outside strings and `ensure_ascii` inside them, in one
 * scan of the text (a regular expression with a callback per string and
 * separator cost a webhook dispatcher about 35 µs per delivery). The same
 * text as `dump` for values read from JSON (no NaN or Infinity).
 */
function compactDumps(value: unknown): string {
  const json = JSON.stringify(value) ?? 'null';
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // an escape: the next character is part of it
      else if (c === 0x22) inString = false;
      else if (c > 0x7e) {
        out += json.slice(from, i) + '\\u' + c.toString(16).padStart(4, '0');
        from = i + 1;
      }
    } else if (c === 0x22) inString = true;
    else if (c === 0x2c || c === 0x3a) {
      out += json.slice(from, i + 1) + ' ';
      from = i + 1;
    }
  }
  return out + json.slice(from);
}

function dump(value: unknown, o: DumpsOptions, depth: number): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return pyNumber(value, 'NaN', 'Infinity');
  if (typeof value === 'string') return asciiString(value);
  if (value instanceof Date) return asciiString(value.toISOString());
  if (typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return dump((value as { toJSON: () => unknown }).toJSON(), o, depth);
  }
  const [open, close, items] = Array.isArray(value)
    ? ['[', ']', value.map((v) => dump(v, o, depth + 1))]
    : ['{', '}', entries(value as Record<string, unknown>, o.sortKeys).map(([k, v]) => `${asciiString(k)}: ${dump(v, o, depth + 1)}`)];
  if (items.length === 0) return open + close;
  if (o.indent === undefined) return open + items.join(', ') + close;
  const pad = (n: number): string => '\n' + ' '.repeat(o.indent! * n);
  return open + pad(depth + 1) + items.join(',' + pad(depth + 1)) + pad(depth) + close;
}

function entries(obj: Record<string, unknown>, sort?: boolean): [string, unknown][] {
  const list = Object.entries(obj).filter(([, v]) => v !== undefined);
  return sort ? list.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : list;
}

/** A JSON string literal with every character outside printable ASCII as `\uxxxx` (Python's `ensure_ascii`). */
export function asciiString(s: string): string {
  return escapeNonAscii(JSON.stringify(s));
}

function escapeNonAscii(literal: string): string {
  return literal.replace(/[^\x20-\x7e]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

function pyNumber(n: number, nan: string, inf: string): string {
  if (Number.isNaN(n)) return nan;
  if (!Number.isFinite(n)) return n > 0 ? inf : '-' + inf;
  return String(n);
}

/** Python's `str(value)`: what Jinja prints for `{{ value }}` (`None`, `True`, `['a', 'b']`, `{'k': 1}`, a model's own text). */
export function pyStr(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  if (value instanceof PyObject) return value.toString();
  return pyRepr(value);
}

function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value instanceof PyObject) return value.repr();
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return pyNumber(value, 'nan', 'inf');
  if (typeof value === 'string') return reprString(value);
  if (Array.isArray(value)) return '[' + value.map(pyRepr).join(', ') + ']';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    return '{' + entries(value as Record<string, unknown>).map(([k, v]) => `${reprString(k)}: ${pyRepr(v)}`).join(', ') + '}';
  }
  return String(value);
}

function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const short: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
  let body = '';
  for (const c of s) {
    const code = c.charCodeAt(0);
    body += short[c] ?? (code < 0x20 || code === 0x7f ? '\\x' + code.toString(16).padStart(2, '0') : c);
  }
  return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
}

/** Python's `a == b` over JSON values: deep, and `True == 1`, `False == 0` (bool is an int). */
export function pyEquals(a: unknown, b: unknown): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return na === nb;
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEquals(x, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a as object);
    const kb = Object.keys(b as object);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b as object, k) && pyEquals((a as any)[k], (b as any)[k]));
  }
  return false;
}

/** The number Python compares a bool or number as; undefined for anything else. */
export function numeric(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return undefined;
}

/** Python's `type(value)` as printed in messages: `<class 'dict'>`. */
export function pyTypeName(value: unknown): string {
  const name =
    value === null || value === undefined ? 'NoneType'
      : typeof value === 'boolean' ? 'bool'
        : typeof value === 'number' ? (Number.isInteger(value) ? 'int' : 'float')
          : typeof value === 'string' ? 'str'
            : Array.isArray(value) ? 'list'
              : 'dict';
  return `<class '${name}'>`;
}
