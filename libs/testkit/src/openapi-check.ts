import type Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';

type Json = Record<string, unknown>;

/** OpenAPI 3.0 `nullable` → JSON Schema `anyOf [..., null]`; refs point into one document. */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === 'nullable' || k === 'readOnly' || k === 'writeOnly' || k === 'example' || k === 'explode' || k === 'style') continue;
    out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as Json).map(([pk, pv]) => [pk, toJsonSchema(pv)])) : toJsonSchema(v);
  }
  if (typeof out.$ref === 'string') out.$ref = (out.$ref as string).replace('#/components/schemas/', 'openapi#/definitions/');
  if ((node as Json).nullable === true) return { anyOf: [out, { type: 'null' }] };
  return out;
}

/**
 * Checks responses against the schema a service generates from its model
 * declarations, so the schema can never drift from what is served.
 */
export class OpenApiChecker {
  private readonly ajv: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(readonly doc: { paths: Json; components: { schemas: Json } }) {
    // loaded here, not with the testkit: ajv is some 60 modules that files without a schema check never need
    const { default: AjvClass } = require('ajv') as typeof import('ajv');
    const { default: addFormats } = require('ajv-formats') as typeof import('ajv-formats');
    this.ajv = new AjvClass({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi', definitions: toJsonSchema(doc.components.schemas) as Json });
  }

  /** Throws with the validation errors when `value` does not match component `name`. */
  check(name: string, value: unknown): void {
    let fn = this.cache.get(name);
    if (!fn) {
      if (!this.doc.components.schemas[name]) throw new Error(`schema ${name} is not in the document`);
      fn = this.ajv.compile({ $ref: `openapi#/definitions/${name}` });
      this.cache.set(name, fn);
    }
    if (!fn(value)) {
      throw new Error(`response does not match schema ${name}: ${this.ajv.errorsText(fn.errors, { separator: '\n' })}\n${JSON.stringify(value).slice(0, 2000)}`);
    }
  }

  checkList(name: string, value: unknown): void {
    const body = value as { count: unknown; results: unknown[] };
    this.check(`Paginated${name}List`, { ...body, results: [] });
    for (const r of body.results) this.check(name, r);
  }

  /** Names of the query parameters a list endpoint documents. */
  parameters(path: string): string[] {
    const op = (this.doc.paths[path] as Json | undefined)?.get as { parameters?: { name: string }[] } | undefined;
    return (op?.parameters ?? []).map((p) => p.name);
  }
}
