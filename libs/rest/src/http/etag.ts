import type { Request } from 'express';
import { PreconditionFailed } from '@inventory/core';
import type { Row } from '../model';

/**
 * Object versions (beyond NetBox 3.7; NetBox added ETags in 4.6): every table
 * has `_version`, raised by every write of the row. The ETag is that version,
 * so it changes exactly when the object does.
 */
export function etagOf(row: Row): string {
  return `"${String(row._version ?? 1)}"`;
}

/**
 * `If-Match` on a single-object write: `*` or a list of ETags (weak ones
 * compared by their value). A mismatch is a 412 and nothing is applied.
 */
export function checkIfMatch(req: Request, current: Row): void {
  const header = req.headers['if-match'];
  if (header === undefined) return;
  const wanted = String(header)
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .filter(Boolean);
  if (wanted.includes('*') || wanted.includes(etagOf(current))) return;
  throw new PreconditionFailed(`The object has changed since version ${wanted.join(', ')}; it is now at ${etagOf(current)}.`);
}
