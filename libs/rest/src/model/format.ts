/** Wire formats shared by serializers and messages. */

/** `2024-05-06 12:00:00.123456+00` → `2024-05-06T12:00:00.123456Z` (microseconds only when non-zero). */
export function isoDateTime(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return isoStamp(value.toISOString());
  // rows of one write share their timestamps: the last answer is kept
  if (value === lastStamp[0]) return lastStamp[1];
  const out = isoStamp(String(value));
  lastStamp = [value, out];
  return out;
}

let lastStamp: [unknown, string] = [undefined, ''];

function isoStamp(s: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?(?:([+-]\d{2})(?::?(\d{2}))?|Z)?$/.exec(s);
  if (!m) return s;
  // Python's isoformat(), as DRF writes it: six digits of microseconds, or none when they are zero
  // (PostgreSQL's text drops trailing zeros: .49513 is .495130)
  const frac = m[3] && !/^\.0+$/.test(m[3]) ? m[3].slice(0, 7).padEnd(7, '0') : '';
  const offset = m[4] && (m[4] !== '+00' || (m[5] && m[5] !== '00')) ? `${m[4]}:${m[5] ?? '00'}` : 'Z';
  return `${m[1]}T${m[2]}${frac}${offset}`;
}

/** Python literal, as NetBox prints attribute dicts in messages: `{'name': 'foo'}`. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `'${k}': ${pyRepr(v)}`)
      .join(', ')}}`;
  }
  return String(value);
}

/** Flattens nested attribute sets the way NetBox turns them into lookups (`site__name`). */
export function flattenAttrs(attrs: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attrs)) {
    if (v && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flattenAttrs(v as Record<string, unknown>, `${prefix}${k}__`));
    else out[prefix + k] = v;
  }
  return out;
}

/** Python type names used in DRF messages. */
export function pyType(value: unknown): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'string':
      return 'str';
    case 'number':
      return Number.isInteger(value) ? 'int' : 'float';
    case 'boolean':
      return 'bool';
    case 'object':
      return 'dict';
    default:
      return typeof value;
  }
}
