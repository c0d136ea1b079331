import type { Body } from './mapping';
import type { Row } from './api';

/** A representation's value as a write takes it: a choice's `value`, a related object's `id`, '' and null alike (NetBox's blank). */
function writable(v: unknown): unknown {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v === 'object') {
    const o = v as Row;
    if ('value' in o) return writable(o.value);
    if ('id' in o) return Number(o.id);
  }
  return v;
}

/** Equal as values: decimals may come back as `1.0` or "1.0" for a file's `1`. */
function same(a: unknown, b: unknown): boolean {
  const x = writable(a);
  const y = writable(b);
  if (typeof x === 'number' || typeof y === 'number') return x !== null && y !== null && Number(x) === Number(y);
  return x === y;
}

/** The fields of `desired` whose value differs from the existing object's (empty: nothing to write). */
export function changedFields(desired: Body, existing: Row): Body {
  const out: Body = {};
  for (const [k, v] of Object.entries(desired)) if (!same(v, existing[k])) out[k] = v;
  return out;
}
