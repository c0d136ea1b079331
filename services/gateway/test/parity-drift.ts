import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * NetBox 3.7.8's API facts (`../shared/parity/netbox-3.7.8.json`, read from
 * its source by `../shared/parity/extract.py`; a copy is kept beside this file
 * so the suite needs nothing outside the repository) compared with our merged
 * OpenAPI document: what a 3.7 client may read or send that a declared model
 * lacks. The parity checker finds the same against a running instance; this
 * runs in the suite, so a model that loses (or never gets) a field, a brief
 * field, a filter or a lookup fails a test unless an exception says why.
 */
type Json = Record<string, any>;

export const FACTS_FILE = path.join(__dirname, 'netbox-3.7.8.json');
/** Where the team's shared copy lives (beside the repository), when it is there. */
export const SHARED_FACTS_FILE = path.resolve(__dirname, '../../../../shared/parity/netbox-3.7.8.json');

export interface EndpointFacts {
  path: string;
  extra: boolean;
  fields?: string[];
  brief?: string[];
  /** False where NetBox's endpoint has no brief form (its `brief` facts are then the full fields). */
  brief_supported?: boolean;
  filters?: Record<string, string>;
  lookups?: Record<string, string[]>;
  query_params?: Record<string, string[]>;
}

export function readFacts(): Record<string, EndpointFacts> {
  return JSON.parse(fs.readFileSync(FACTS_FILE, 'utf8')).endpoints;
}

/** `/api/dcim/sites/{id}/` and `/api/dcim/sites/{pk}/` are one path. */
const norm = (p: string) => p.replace(/\{[^}]+\}/g, '{id}');

export class OpenApiView {
  private readonly paths = new Map<string, Json>();
  private readonly schemas: Json;

  constructor(doc: Json) {
    this.schemas = doc.components?.schemas ?? {};
    for (const [p, ops] of Object.entries(doc.paths ?? {})) this.paths.set(norm(p), ops as Json);
  }

  has(p: string): boolean {
    return this.paths.has(norm(p));
  }

  private deref(node: Json | undefined): [string | null, Json] {
    let name: string | null = null;
    for (let i = 0; node && node.$ref && i < 20; i++) {
      name = String(node.$ref).split('/').pop()!;
      node = this.schemas[name];
    }
    return [name, node ?? {}];
  }

  private properties(node: Json | undefined): [string | null, string[]] {
    const [name, n] = this.deref(node);
    const props = new Set(Object.keys(n.properties ?? {}));
    for (const sub of n.allOf ?? []) for (const p of this.properties(sub)[1]) props.add(p);
    return [name, [...props]];
  }

  /** The component and property names of one item of the list's GET answer. */
  listItem(p: string): [string | null, string[]] {
    const op = this.paths.get(norm(p))?.get;
    const schema = op?.responses?.['200']?.content?.['application/json']?.schema;
    if (!schema) return [null, []];
    const [name, node] = this.deref(schema);
    const results = node.properties?.results ? this.deref(node.properties.results)[1] : node;
    return results.type === 'array' ? this.properties(results.items) : [name, Object.keys(node.properties ?? {})];
  }

  brief(component: string | null): string[] {
    if (!component) return [];
    const name = [`Brief${component}`, `Brief${component.replace(/WithConfigContext$/, '')}`].find((c) => this.schemas[c]);
    return name ? this.properties({ $ref: `#/components/schemas/${name}` })[1] : [];
  }

  /** The documented query parameters of the list's GET. */
  params(p: string): Set<string> {
    const op = this.paths.get(norm(p))?.get;
    return new Set((op?.parameters ?? []).map((x: Json) => this.deref(x)[1]).filter((x: Json) => x.in === 'query').map((x: Json) => String(x.name)));
  }
}

/** What one endpoint lacks, by kind (`field:x`, `brief:x`, `filter:x`, `lookup:x__n`). */
export function gaps(api: OpenApiView, facts: EndpointFacts): string[] {
  const out: string[] = [];
  const [component, fields] = api.listItem(facts.path);
  for (const f of facts.fields ?? []) if (!fields.includes(f)) out.push(`field:${f}`);
  const brief = api.brief(component);
  if (facts.brief && brief.length) for (const f of facts.brief) if (!brief.includes(f)) out.push(`brief:${f}`);
  const params = api.params(facts.path);
  for (const [name] of Object.entries(facts.filters ?? {})) {
    // a range filter is sent as `<name>_after` / `<name>_before`
    const wire = facts.query_params?.[name] ?? [name];
    if (!wire.every((w) => params.has(w))) {
      out.push(`filter:${name}`);
      continue;
    }
    for (const lookup of facts.lookups?.[name] ?? []) if (!params.has(`${name}__${lookup}`)) out.push(`lookup:${name}__${lookup}`);
  }
  return out;
}
