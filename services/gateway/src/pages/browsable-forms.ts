/**
 * What the browsable API's forms start with, from the OPTIONS answer's
 * `actions.POST` / `actions.PUT` field maps (libs/rest/src/http/options.ts).
 */

export interface FieldInfo {
  type?: string;
  required?: boolean;
  read_only?: boolean;
  label?: string;
  help_text?: string;
  max_length?: number;
  choices?: { value: unknown; display_name?: unknown }[];
  child?: FieldInfo;
}

export type ActionFields = Record<string, FieldInfo>;

/** The action's field map from an OPTIONS body, or null when the caller may not do it. */
export function actionFields(options: unknown, action: 'POST' | 'PUT'): ActionFields | null {
  const actions = isObject(options) ? options.actions : undefined;
  const fields = isObject(actions) ? actions[action] : undefined;
  return isObject(fields) ? (fields as ActionFields) : null;
}

/** The writable fields (read-only ones are the server's to fill). */
export function writable(fields: ActionFields): [string, FieldInfo][] {
  return Object.entries(fields).filter(([, f]) => isObject(f) && !f.read_only);
}

/**
 * The POST form's JSON: every required writable field with an empty value of
 * its type, for the user to fill in. Optional fields are left out (an empty
 * value is not always a valid one: a status's default is not ''); the page
 * lists them beside the form.
 */
export function postTemplate(fields: ActionFields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, f] of writable(fields)) if (f.required) out[name] = emptyOf(f);
  return out;
}

function emptyOf(f: FieldInfo): unknown {
  switch (f.type) {
    case 'boolean':
      return false;
    case 'list':
      return [];
    case 'string':
    case 'slug':
    case 'email':
    case 'url':
    case 'choice':
    case 'field':
      return '';
    default:
      return null; // numbers, dates, nested objects
  }
}

/**
 * The PUT/PATCH form's JSON: the object's writable fields as a write takes
 * them back (a nested object as its id, a choice as its value, tags as ids),
 * so sending it unchanged changes nothing.
 */
export function editableCopy(object: Record<string, unknown>, fields: ActionFields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, f] of writable(fields)) {
    if (!Object.prototype.hasOwnProperty.call(object, name)) continue;
    const value = object[name];
    if (name === 'custom_fields' && isObject(value)) out[name] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, Array.isArray(v) ? v.map(asReference) : asReference(v)]));
    else if (f.type === 'nested object') out[name] = asReference(value);
    else if (Array.isArray(value)) out[name] = value.map((v) => asChoice(asReference(v)));
    else out[name] = asChoice(value);
  }
  return out;
}

/** A nested object as its id (what every reference accepts). */
function asReference(value: unknown): unknown {
  return isObject(value) && (typeof value.id === 'number' || typeof value.id === 'string') ? value.id : value;
}

/** A choice as written: NetBox shows `{value, label}`, takes the value. */
function asChoice(value: unknown): unknown {
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  return keys.length === 2 && 'value' in value && 'label' in value ? value.value : value;
}

export function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
