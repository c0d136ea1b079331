import { BadRequest, ValidationError, type FieldErrors } from './errors';

/**
 * Checks on untrusted text that must happen before it reaches PostgreSQL
 * (which refuses NUL bytes) or a parser: DRF's own messages, so clients see
 * what they already know.
 */
export function textProblem(text: string): string | null {
  if (text.includes('\0')) return 'Null characters are not allowed.';
  if (!(text as string & { isWellFormed(): boolean }).isWellFormed()) {
    const bad = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.exec(text)![0];
    return `Surrogate characters are not allowed: U+${bad.charCodeAt(0).toString(16).toUpperCase()}.`;
  }
  return null;
}

/** How deeply a request body may nest (DRF has no limit; Python's parser stops near 1000). */
export const MAX_JSON_DEPTH = 100;

class TooDeep extends Error {}

/** The first bad string (value or key) anywhere below `value`, or null. */
function firstProblem(value: unknown, depth: number, strings: boolean): string | null {
  if (depth > MAX_JSON_DEPTH) throw new TooDeep();
  if (typeof value === 'string') return strings ? textProblem(value) : null;
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (const v of value) {
      const p = firstProblem(v, depth + 1, strings);
      if (p) return p;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value)) {
    const p = (strings ? textProblem(k) : null) ?? firstProblem(v, depth + 1, strings);
    if (p) return p;
  }
  return null;
}

/** Field errors of one object: the top-level key whose value (at any depth) holds bad text. */
function objectErrors(value: unknown, depth: number, strings: boolean): FieldErrors | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const p = firstProblem(value, depth, strings);
    return p ? { non_field_errors: [p] } : null;
  }
  const errors: FieldErrors = {};
  for (const [k, v] of Object.entries(value)) {
    const keyProblem = strings ? textProblem(k) : null;
    if (keyProblem) {
      errors.non_field_errors = [keyProblem];
      continue;
    }
    const p = firstProblem(v, depth + 1, strings);
    if (p) errors[k] = [p];
  }
  return Object.keys(errors).length ? errors : null;
}

/**
 * Refuses a parsed JSON body that nests deeper than MAX_JSON_DEPTH (400
 * detail) or carries NUL bytes or unpaired surrogates (400 naming the field;
 * a list body gets one error object per item, as bulk writes answer).
 * `rawText` lets the common case skip the string scan: both can only arrive
 * as `\u` escapes in JSON text.
 */
export function checkJsonBody(body: unknown, rawText: string): void {
  const strings = rawText.includes('\\u');
  try {
    if (Array.isArray(body)) {
      const errors = body.map((item) => objectErrors(item, 1, strings));
      if (errors.some(Boolean)) throw new ValidationError(errors.map((e) => e ?? {}));
      return;
    }
    const errors = objectErrors(body, 0, strings);
    if (errors) throw new ValidationError(errors);
  } catch (err) {
    if (err instanceof TooDeep) throw new BadRequest(`JSON parse error - nesting deeper than ${MAX_JSON_DEPTH} levels`);
    throw err;
  }
}

/** Query parameters: names and values with bad text are a 400 naming the parameter. */
export function checkQueryText(params: URLSearchParams): void {
  const errors: Record<string, string[]> = {};
  for (const [k, v] of params) {
    const p = textProblem(k) ?? textProblem(v);
    if (p) errors[textProblem(k) ? 'non_field_errors' : k] = [p];
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
}
