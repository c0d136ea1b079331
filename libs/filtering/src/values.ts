/** Parsing of query-string values into typed values, with django-filter's messages. */

export class FilterValueError extends Error {}

export function parseInteger(value: string): number {
  if (!/^-?\d+$/.test(value.trim())) throw new FilterValueError('Enter a whole number.');
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new FilterValueError('Enter a whole number.');
  return n;
}

export function parseNumber(value: string): number {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(n)) throw new FilterValueError('Enter a number.');
  return n;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Date.parse rolls impossible days over (2024-02-30 → March 1) but PostgreSQL's cast fails on them. */
function isCalendarDate(isoPrefix: string): boolean {
  const [y, m, d] = isoPrefix.slice(0, 10).split('-').map(Number);
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d);
  return y >= 1 && date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

export function parseDate(value: string): string {
  if (!ISO_DATE.test(value) || Number.isNaN(Date.parse(value)) || !isCalendarDate(value)) throw new FilterValueError('Enter a valid date.');
  return value;
}

export function parseDateTime(value: string): string {
  const v = value.trim().replace(' ', 'T');
  if (!/^\d{4}-\d{2}-\d{2}([T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(v) || Number.isNaN(Date.parse(v)) || !isCalendarDate(v)) {
    throw new FilterValueError('Enter a valid date/time.');
  }
  return v;
}

/** NetBox accepts true/false/True/False; 1/0 is a harmless superset. Anything else: no filter (undefined). */
export function parseBoolean(value: string): boolean | undefined {
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return undefined;
}
