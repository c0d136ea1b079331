import type { FieldDef } from './fields';
import type { Row } from './model';

/** Length of a natural sort key (NetBox's NaturalOrderingField max_length). */
export const NATURAL_KEY_LENGTH = 100;
/** Places each digit run is padded to (NetBox's naturalize integer_places). */
const INTEGER_PLACES = 8;

/**
 * NetBox's `naturalize()`: every run of digits left-padded with zeros to 8
 * places, so that a plain text sort orders "site 2" before "site 10";
 * longer runs are kept whole, and the key is cut at 100 characters.
 */
export function naturalize(value: string): string {
  if (!value) return value;
  const key = value
    .split(/(\p{Nd}+)/u)
    .map((segment, i) => (i % 2 === 1 ? segment.padStart(INTEGER_PLACES, '0') : segment))
    .join('');
  // characters, not UTF-16 units: the column's length counts characters
  return Array.from(key).slice(0, NATURAL_KEY_LENGTH).join('');
}

/** The column holding a field's natural sort key, or null when the field is not naturally ordered. */
export function naturalColumn(name: string, field: FieldDef | undefined): string | null {
  return field && field.type !== 'fk' && 'natural' in field && field.natural ? `_${name}` : null;
}

/** Adds the sort keys of the naturally ordered fields among the column values a write stores. */
export function withNaturalKeys(model: { fields: Record<string, FieldDef> }, columns: Row): Row {
  let out = columns;
  for (const [name, field] of Object.entries(model.fields)) {
    const column = naturalColumn(name, field);
    if (!column || !Object.prototype.hasOwnProperty.call(columns, name)) continue;
    if (out === columns) out = { ...columns };
    const value = columns[name];
    out[column] = value === null || value === undefined ? '' : naturalize(String(value));
  }
  return out;
}
