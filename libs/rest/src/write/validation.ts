import Joi from 'joi';
import { contentType } from '@inventory/refs';
import {
  DECIMAL_DIGITS,
  DECIMAL_PLACES,
  type FieldDef,
  type ChoiceField,
  type NetworkField,
  type NumberField,
  type StringField,
  formatNetwork,
  isNetwork,
  networkOf,
  parseNetwork,
  type ModelDef,
} from '../model';

/** A placeholder for DRF's message for JSON that is not an object (joi reads braces in a message as a template): put in after. */
const JSON_OBJECT = 'json-object';

/** DRF's texts, so clients see the messages they already know. */
const MESSAGES: Joi.LanguageMessages = {
  'any.required': 'This field is required.',
  'string.base': 'Not a valid string.',
  'string.empty': 'This field may not be blank.',
  'string.max': 'Ensure this field has no more than {#limit} characters.',
  'string.min': 'Ensure this field has at least {#limit} characters.',
  'string.email': 'Enter a valid email address.',
  'string.uri': 'Enter a valid URL.',
  'number.base': 'A valid integer is required.',
  'number.integer': 'A valid integer is required.',
  'number.unsafe': 'A valid integer is required.',
  'number.max': 'Ensure this value is less than or equal to {#limit}.',
  'number.min': 'Ensure this value is greater than or equal to {#limit}.',
  'number.infinity': 'A valid number is required.',
  'boolean.base': 'Must be a valid boolean.',
  'array.base': 'Expected a list of items but got type "{#type}".',
  'array.max': 'Ensure this field has no more than {#limit} elements.',
  'object.base': 'Value must be valid JSON.',
  'date.base': 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
};

const SLUG = /^[-\p{L}\p{N}_]+$/u;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** Column ranges: int4, and the integers a JS number holds exactly (bigint columns). */
const INT4 = [-2147483648, 2147483647] as const;
const SAFE = [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] as const;

/** Date.parse rolls impossible days over (2024-02-30 → March 1); PostgreSQL refuses them. */
function isCalendarDate(iso: string): boolean {
  const [y, m, d] = iso.slice(0, 10).split('-').map(Number);
  const date = new Date(Date.UTC(2000, m - 1, d));
  date.setUTCFullYear(y);
  return y >= 1 && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** Choice values: raw values only; "true"/"false" and numeric strings are coerced first (NetBox ChoiceField). */
function choiceSchema(field: ChoiceField): Joi.Schema {
  return Joi.any().custom((value, helpers) => {
    if (value !== null && typeof value === 'object') {
      return helpers.message({ custom: 'Value must be passed directly (e.g. "foo": 123); do not use a dictionary or list.' });
    }
    if (value === '' || value === null) {
      if (field.blank) return '';
      return helpers.message({ custom: value === '' ? 'This field may not be blank.' : 'This field may not be null.' });
    }
    let v: unknown = value;
    const numeric = typeof field.choices[0]?.[0] === 'number';
    if (typeof v === 'string' && /^(true|false)$/i.test(v)) v = v.toLowerCase() === 'true';
    else if (typeof v === 'string' && numeric && /^\d+$/.test(v)) v = Number(v);
    // integer-valued choices also accept the label's slug form (VLAN status "active")
    if (numeric && typeof v === 'string') v = field.choices.find(([, l]) => l.toLowerCase() === String(v).toLowerCase())?.[0] ?? v;
    const hit = field.choices.find(([c]) => c === v);
    // NetBox's ChoiceField names the value bare; a stock DRF ChoiceField (a plain one) quotes it
    if (!hit) return helpers.message({ custom: field.plain ? `"${String(value)}" is not a valid choice.` : `${String(value)} is not a valid choice.` });
    return hit[0];
  });
}

function scalarSchema(field: FieldDef): Joi.Schema | null {
  switch (field.type) {
    case 'string':
    case 'text':
    case 'password':
    case 'slug':
    case 'email':
    case 'url':
    case 'color':
      return textSchema(field);
    case 'integer':
    case 'bigint': {
      // what the column can hold, unless the declaration narrows it
      const [lo, hi] = field.type === 'integer' ? INT4 : SAFE;
      return Joi.number()
        .integer()
        .min(field.min ?? lo)
        .max(field.max ?? hi);
    }
    case 'decimal':
      return decimalSchema(field);
    case 'boolean':
      return Joi.boolean().truthy(1, '1', 'True', 'yes').falsy(0, '0', 'False', 'no');
    case 'date':
    case 'datetime':
      return dateSchema(field.type);
    case 'json':
      if (field.shape === 'object') return Joi.object().unknown(true).messages({ 'object.base': JSON_OBJECT });
      if (field.shape === 'object-or-array') return Joi.alternatives(Joi.object().unknown(true), Joi.array()).messages({ 'alternatives.types': 'Value must be a JSON object or list.' });
      return Joi.any();
    case 'choice':
      return choiceSchema(field);
    case 'array': {
      let item: Joi.Schema = field.of === 'integer' ? Joi.number().integer() : Joi.string();
      if (field.of === 'string' && field.itemMaxLength) item = (item as Joi.StringSchema).max(field.itemMaxLength);
      const a = Joi.array().items(item);
      return field.maxItems ? a.max(field.maxItems) : a;
    }
    case 'cidr':
    case 'inet':
      return networkSchema(field);
    case 'contenttype':
      return contentTypeSchema(field);
    default:
      return null;
  }
}

/** Text of every kind: lengths and patterns (a slug's, an email's, a URL's, a colour's); blank allowed unless required. */
function textSchema(field: StringField): Joi.Schema {
  switch (field.type) {
    case 'slug': {
      const s = Joi.string()
        .max(field.maxLength ?? 100)
        .pattern(SLUG)
        .messages({ 'string.pattern.base': 'Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.' });
      return field.required ? s : s.allow('');
    }
    case 'email': {
      const s = Joi.string().max(field.maxLength ?? 254).email({ tlds: false });
      return field.required ? s : s.allow('');
    }
    case 'url': {
      const s = Joi.string().max(field.maxLength ?? 200).uri();
      return field.required ? s : s.allow('');
    }
    case 'color':
      return Joi.string()
        .pattern(/^[0-9a-f]{6}$/)
        .messages({ 'string.pattern.base': 'Enter a valid hexadecimal RGB color code.' });
    default: {
      if (field.check) return checkedString(field);
      let s = Joi.string();
      if (field.maxLength) s = s.max(field.maxLength);
      if (field.minLength) s = s.min(field.minLength);
      if (field.pattern) s = s.pattern(field.pattern.regex, { name: 'custom' }).messages({ 'string.pattern.name': field.pattern.message });
      return field.required ? s : s.allow('');
    }
  }
}

/** A date (`YYYY-MM-DD`, a real one) or a date and time, in DRF's words when it is not. */
function dateSchema(type: 'date' | 'datetime'): Joi.Schema {
  if (type === 'date') {
    return Joi.string()
      .pattern(DATE)
      .custom((v: string, helpers) => (isCalendarDate(v) ? v : helpers.error('string.pattern.base'))).messages({ 'string.pattern.base': 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.', 'string.base': 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.' });
  }
  return Joi.string()
    .pattern(DATETIME)
    .custom((v: string) => (Number.isNaN(Date.parse(v.replace(' ', 'T'))) || !isCalendarDate(v) ? (() => { throw new Error('bad'); })() : v))
    .messages({
      'string.pattern.base': MESSAGES['date.base'] as string,
      'string.base': MESSAGES['date.base'] as string,
      'any.custom': MESSAGES['date.base'] as string,
    });
}

/** A content type as `<app_label>.<model_name>`, one the field allows (a list of them when `many`). */
function contentTypeSchema(field: Extract<FieldDef, { type: 'contenttype' }>): Joi.Schema {
  const one = Joi.any().custom((value, helpers) => {
    if (typeof value !== 'string' || !/^[a-z_0-9]+\.[a-z_0-9]+$/.test(value)) {
      return helpers.message({ custom: "Invalid value. Specify a content type as '<app_label>.<model_name>'." });
    }
    const ct = contentType(value);
    if (!ct || (field.allowed && !field.allowed(value))) return helpers.message({ custom: `Invalid content type: ${value}` });
    return ct.label;
  });
  return field.many ? Joi.array().items(one) : one;
}

/**
 * An IP network or address as NetBox's serializer field reads it (netaddr):
 * stored as its canonical text; a prefix (`cidr`) with host bits set is
 * refused with the network it meant, a /0 mask where the declaration says so.
 */
function networkSchema(field: NetworkField): Joi.Schema {
  return Joi.any().custom((value, helpers) => {
    if (typeof value !== 'string') return helpers.message({ custom: MESSAGES['string.base'] as string });
    if (value.trim() === '') return helpers.message({ custom: 'This field may not be blank.' });
    const parsed = parseNetwork(value);
    if (!parsed) return helpers.message({ custom: `Invalid IP address format: ${value}` });
    if (parsed.length === 0 && field.zeroMask) return helpers.message({ custom: field.zeroMask });
    if (field.type === 'cidr' && !isNetwork(parsed)) {
      return helpers.message({ custom: `${formatNetwork(parsed)} is not a valid prefix. Did you mean ${formatNetwork(networkOf(parsed))}?` });
    }
    return formatNetwork(parsed);
  });
}

/** A string the declaration checks itself (a time zone name): blank values are checked too, then the length. */
function checkedString(field: StringField): Joi.Schema {
  const { test, message } = field.check!;
  return Joi.any().custom((value, helpers) => {
    if (typeof value !== 'string') return helpers.message({ custom: MESSAGES['string.base'] as string });
    if (!test(value)) return helpers.message({ custom: message });
    if (field.maxLength && [...value].length > field.maxLength) return helpers.message({ custom: `Ensure this field has no more than ${field.maxLength} characters.` });
    return value;
  });
}

/** DRF's DecimalField.MAX_STRING_LENGTH. */
const DECIMAL_MAX_TEXT = 1000;
const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * A decimal as DRF's DecimalField reads it: a JSON number or numeric text,
 * refused (with DRF's messages) when it has more digits in total, after the
 * point or before it than the column holds; stored as plain decimal text, so
 * no digit is lost to floating point. Blank text is null where null is allowed.
 */
function decimalSchema(field: NumberField): Joi.Schema {
  const maxDigits = field.maxDigits ?? DECIMAL_DIGITS;
  const maxPlaces = field.decimalPlaces ?? DECIMAL_PLACES;
  const maxWhole = maxDigits - maxPlaces;
  return Joi.any().custom((value, helpers) => {
    const fail = (text: string) => helpers.message({ custom: text });
    if (typeof value !== 'number' && typeof value !== 'string') return fail('A valid number is required.');
    const text = typeof value === 'number' ? String(value) : value.trim();
    if (text === '' && field.nullable) return null;
    if (text.length > DECIMAL_MAX_TEXT) return fail('String value too large.');
    const m = DECIMAL_TEXT.exec(text);
    if (!m || (m[2] === '' && !m[3])) return fail('A valid number is required.');
    const [, sign, whole, fraction = '', exp = '0'] = m;
    // Python's Decimal: the coefficient's digits (leading zeros dropped) and the exponent
    const coefficient = `${whole}${fraction}`.replace(/^0+(?=\d)/, '');
    const exponent = Number(exp) - fraction.length;
    if (!Number.isSafeInteger(exponent)) return fail(`Ensure that there are no more than ${maxDigits} digits in total.`);
    let total: number;
    let places: number;
    if (exponent >= 0) [total, places] = [coefficient.length + exponent, 0];
    else if (coefficient.length > -exponent) [total, places] = [coefficient.length, -exponent];
    else [total, places] = [-exponent, -exponent];
    if (total > maxDigits) return fail(`Ensure that there are no more than ${maxDigits} digits in total.`);
    if (places > maxPlaces) return fail(`Ensure that there are no more than ${maxPlaces} decimal places.`);
    if (total - places > maxWhole) return fail(`Ensure that there are no more than ${maxWhole} digits before the decimal point.`);
    const digits = exponent >= 0 ? coefficient + '0'.repeat(exponent) : coefficient.padStart(-exponent + 1, '0');
    const plain = `${sign === '-' ? '-' : ''}${exponent >= 0 ? digits : `${digits.slice(0, exponent)}.${digits.slice(exponent)}`}`;
    const n = Number(plain);
    if (field.max !== undefined && n > field.max) return fail(`Ensure this value is less than or equal to ${field.max}.`);
    if (field.min !== undefined && n < field.min) return fail(`Ensure this value is greater than or equal to ${field.min}.`);
    return plain;
  });
}

/** DRF's JSONField text for a value that must be an object. */
export const JSON_OBJECT_MESSAGE = 'JSON data must be in object form. Example: {"foo": 123}';

export type WriteMode = 'create' | 'put' | 'patch';

const cache = new WeakMap<ModelDef, Map<WriteMode, Joi.ObjectSchema>>();

/** joi schema for the scalar fields of a model in one write mode; relations are checked by the resolver. */
export function scalarValidator(model: ModelDef, mode: WriteMode): Joi.ObjectSchema {
  let byMode = cache.get(model);
  if (!byMode) cache.set(model, (byMode = new Map()));
  let schema = byMode.get(mode);
  if (!schema) {
    const keys: Record<string, Joi.Schema> = {};
    for (const [name, field] of Object.entries(model.fields)) {
      if (field.readOnly) continue;
      let s = scalarSchema(field);
      if (!s) continue;
      if (field.nullable) s = s.allow(null);
      if (mode !== 'patch' && field.required && field.default === undefined) s = s.required();
      keys[name] = s;
    }
    schema = Joi.object(keys).unknown(true).prefs({ messages: MESSAGES, abortEarly: false, convert: true });
    byMode.set(mode, schema);
  }
  return schema;
}

/** Runs the scalar validator; returns coerced values and `{field: [msg]}` errors. */
export function validateScalars(model: ModelDef, mode: WriteMode, body: Record<string, unknown>): { values: Record<string, unknown>; errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  // null on a non-nullable field: DRF's own message, before type checks
  for (const [name, field] of Object.entries(model.fields)) {
    if (!field.readOnly && body[name] === null && !field.nullable && field.type !== 'choice') errors[name] = ['This field may not be null.'];
  }
  // DRF's CharField takes numbers and stores their text (YAML-driven clients send `name: 123`)
  let input = body;
  for (const [name, field] of Object.entries(model.fields)) {
    const v = body[name];
    if (typeof v === 'number' && Number.isFinite(v) && (field.type === 'string' || field.type === 'text' || field.type === 'slug')) {
      if (input === body) input = { ...body };
      input[name] = String(v);
    }
  }
  const { value, error } = scalarValidator(model, mode).validate(input);
  for (const d of error?.details ?? []) {
    const key = String(d.path[0] ?? '__all__');
    if (errors[key]) continue;
    (errors[key] ??= []).push(d.message === JSON_OBJECT ? JSON_OBJECT_MESSAGE : d.message);
  }
  return { values: value as Record<string, unknown>, errors };
}
