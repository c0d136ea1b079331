import { ValidationError } from '@inventory/core';
import { type FilterDef, type Sql, sql, raw, or, stringLookup, parseBoolean } from '@inventory/filtering';
import { pyType } from './format';

/** A custom field definition as the extras service hands it out. */
export interface CustomFieldDef {
  id: number;
  name: string;
  type: string;
  object_type: string | null;
  content_types: string[];
  required: boolean;
  default: unknown;
  filter_logic: 'disabled' | 'loose' | 'exact';
  validation_minimum: number | null;
  validation_maximum: number | null;
  validation_regex: string;
  /** Allowed values of select/multiselect fields. */
  choices: string[];
  choice_set_name: string | null;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** Why a value is invalid for a field, or null when it is fine (NetBox's texts, A.13). */
export function customFieldValueError(cf: CustomFieldDef, value: unknown): string | null {
  if (value === null || value === '') return cf.required ? 'Required field cannot be empty.' : null;
  switch (cf.type) {
    case 'text':
    case 'longtext':
      if (typeof value !== 'string') return 'Value must be a string.';
      if (cf.validation_regex && !new RegExp(`^(?:${cf.validation_regex})`).test(value)) return `Value must match regex '${cf.validation_regex}'`;
      return null;
    case 'url':
      if (typeof value !== 'string') return 'Value must be a string.';
      if (cf.validation_regex && !new RegExp(`^(?:${cf.validation_regex})`).test(value)) return `Value must match regex '${cf.validation_regex}'`;
      return null;
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return 'Value must be an integer.';
      if (cf.validation_minimum !== null && value < cf.validation_minimum) return `Value must be at least ${cf.validation_minimum}`;
      if (cf.validation_maximum !== null && value > cf.validation_maximum) return `Value must not exceed ${cf.validation_maximum}`;
      return null;
    case 'decimal': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      if (!Number.isFinite(n)) return 'Value must be a decimal.';
      if (cf.validation_minimum !== null && n < cf.validation_minimum) return `Value must be at least ${cf.validation_minimum}`;
      if (cf.validation_maximum !== null && n > cf.validation_maximum) return `Value must not exceed ${cf.validation_maximum}`;
      return null;
    }
    case 'boolean':
      return value === true || value === false || value === 1 || value === 0 ? null : 'Value must be true or false.';
    case 'date':
      return typeof value === 'string' && ISO_DATE.test(value) && !Number.isNaN(Date.parse(value))
        ? null
        : 'Date values must be in ISO 8601 format (YYYY-MM-DD).';
    case 'datetime':
      return typeof value === 'string' && ISO_DATETIME.test(value) && !Number.isNaN(Date.parse(value.replace(' ', 'T')))
        ? null
        : 'Date and time values must be in ISO 8601 format (YYYY-MM-DD HH:MM:SS).';
    case 'select':
      return typeof value === 'string' && cf.choices.includes(value) ? null : `Invalid choice (${String(value)}) for choice set ${cf.choice_set_name}.`;
    case 'multiselect': {
      if (!Array.isArray(value)) return `Invalid choice(s) (${String(value)}) for choice set ${cf.choice_set_name}.`;
      const bad = value.filter((v) => typeof v !== 'string' || !cf.choices.includes(v));
      return bad.length ? `Invalid choice(s) (${bad.join(', ')}) for choice set ${cf.choice_set_name}.` : null;
    }
    case 'object':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? null : `Value must be an object ID, not ${pyType(value)}`;
    case 'multiobject': {
      if (!Array.isArray(value)) return `Value must be a list of object IDs, not ${pyType(value)}`;
      const bad = value.find((v) => typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0);
      return bad !== undefined ? `Found invalid object ID: ${String(bad)}` : null;
    }
    default:
      return null;
  }
}

/** Stored form: booleans as true/false, decimals as numbers. */
function normalise(cf: CustomFieldDef, value: unknown): unknown {
  if (value === '' || value === null) return null;
  if (cf.type === 'boolean') return value === true || value === 1;
  if (cf.type === 'decimal') return Number(value);
  return value;
}

/**
 * Computes the stored custom field data for a write.
 * Create without `custom_fields`: every field gets its default. Create with it:
 * only the given keys. Update: the given keys are merged over the stored ones.
 */
export function applyCustomFields(
  defs: CustomFieldDef[],
  input: unknown,
  existing: Record<string, unknown> | null,
): Record<string, unknown> {
  const byName = new Map(defs.map((d) => [d.name, d]));
  let data: Record<string, unknown>;
  if (input === undefined) {
    if (existing) return existing;
    data = {};
    for (const d of defs) data[d.name] = d.default ?? null;
  } else {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new ValidationError({
        custom_fields: ['Invalid data format. Custom field data must be passed as a dictionary mapping field names to their values.'],
      });
    }
    const errors: string[] = [];
    const given = input as Record<string, unknown>;
    data = existing ? { ...existing } : {};
    for (const [name, value] of Object.entries(given)) {
      const cf = byName.get(name);
      if (!cf) {
        errors.push(`Unknown field name '${name}' in custom field data.`);
        continue;
      }
      const problem = customFieldValueError({ ...cf, required: false }, value);
      if (problem) errors.push(`Invalid value for custom field '${name}': ${problem}`);
      else data[name] = normalise(cf, value);
    }
    if (errors.length) throw new ValidationError({ __all__: errors });
  }
  const missing = defs.filter((d) => d.required && (data[d.name] === undefined || data[d.name] === null || data[d.name] === ''));
  if (missing.length) throw new ValidationError({ __all__: missing.map((d) => `Missing required custom field '${d.name}'.`) });
  return data;
}

/** Every field assigned to the model appears, unset ones as null. */
export function renderCustomFields(defs: CustomFieldDef[], data: unknown): Record<string, unknown> {
  const stored = (data ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const d of defs) out[d.name] = stored[d.name] ?? null;
  return out;
}

/** `cf_<name>` filters with each field's filter logic (A.13). */
export function customFieldFilters(defs: CustomFieldDef[], column: Sql): FilterDef[] {
  const out: FilterDef[] = [];
  for (const cf of defs) {
    if (cf.filter_logic === 'disabled' || cf.type === 'json') continue;
    const name = `cf_${cf.name}`;
    const text = sql`(${column}->>${cf.name})`;
    const json = sql`(${column}->${cf.name})`;
    switch (cf.type) {
      case 'text':
      case 'longtext':
      case 'url':
        if (cf.filter_logic === 'loose') {
          out.push({ kind: 'method', name, apply: (values) => stringLookup(text, 'ic', values) });
        } else out.push({ kind: 'string', name, expr: text });
        break;
      case 'select':
        out.push({ kind: 'string', name, expr: text });
        break;
      case 'integer':
      case 'object':
        out.push({ kind: 'integer', name, expr: sql`(${text})::bigint` });
        break;
      case 'decimal':
        out.push({ kind: 'decimal', name, expr: sql`(${text})::numeric` });
        break;
      case 'date':
        out.push({ kind: 'date', name, expr: sql`(${text})::date` });
        break;
      case 'datetime':
        out.push({ kind: 'datetime', name, expr: sql`(${text})::timestamptz` });
        break;
      case 'boolean':
        out.push({
          kind: 'method',
          name,
          apply: (values) => {
            const b = parseBoolean(values[values.length - 1]);
            return b === undefined ? undefined : sql`(${json})::jsonb = ${JSON.stringify(b)}::jsonb`;
          },
        });
        break;
      case 'multiselect':
        out.push({
          kind: 'method',
          name,
          apply: (values) =>
            or(values.map((v) => (v === 'null' ? sql`(${json} IS NULL OR ${json} = 'null'::jsonb)` : sql`${json} @> ${JSON.stringify([v])}::jsonb`))),
        });
        break;
      case 'multiobject':
        out.push({
          kind: 'method',
          name,
          valueType: 'integer',
          apply: (values) => or(values.map((v) => sql`${json} @> ${JSON.stringify([Number(v)])}::jsonb`)),
        });
        break;
      default:
        out.push({ kind: 'method', name, apply: () => raw('TRUE') });
    }
  }
  return out;
}
