import { Drop } from 'liquidjs';

/**
 * A model instance as a Jinja template sees it (an export template's
 * `queryset` items, their related objects): attributes read as
 * `{{ device.site.name }}`, and the object itself prints as Python's
 * `str()` of it (`{{ device.site }}` → the site's name), compares equal to
 * that text and is truthy. The attributes are the object's own properties,
 * so Jinja's filters (`map(attribute='name')`, `join(attribute=…)`) read
 * them as they read a dict's keys.
 */
const TEXT = new WeakMap<PyObject, { str: string; kind: string }>();

export class PyObject extends Drop {
  /**
   * `attributes` itself becomes the instance (it is not copied): a plain
   * object keeps V8's fast properties, where a class instance given fifty
   * properties one by one takes six times the memory (an export's
   * `queryset` holds every object at once).
   */
  static of(attributes: Record<string, unknown>, str: string, kind = 'object'): PyObject {
    const made = Object.setPrototypeOf(attributes, PyObject.prototype) as PyObject;
    TEXT.set(made, { str, kind });
    return made;
  }

  /** What liquid compares and prints: the object's `str()`. */
  override valueOf(): string {
    return TEXT.get(this)?.str ?? '';
  }

  override toString(): string {
    return this.valueOf();
  }

  /** Python's `repr()` of a model instance: `<Site: DC1>`. */
  repr(): string {
    const t = TEXT.get(this);
    return `<${t?.kind ?? 'object'}: ${t?.str ?? ''}>`;
  }
}
