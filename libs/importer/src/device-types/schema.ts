import { promises as fs } from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import type { FileProblem } from './errors';
import type { LibraryFile, TypeKind } from './library';

type Json = Record<string, unknown>;

/** The library's own JSON schemas (`schema/*.json`), compiled once per run. */
export interface LibrarySchema {
  validate(file: LibraryFile): FileProblem[];
  /** `$ref`s the shipped schema files do not define (they validate as anything), for the run's log. */
  unresolved: string[];
}

const ROOTS: Record<TypeKind, string> = { device: 'devicetype.json', module: 'moduletype.json' };

export async function loadLibrarySchema(dir: string): Promise<LibrarySchema> {
  const names = (await fs.readdir(dir)).filter((n) => n.endsWith('.json'));
  const docs = new Map<string, Json>();
  for (const n of names) docs.set(n, JSON.parse(await fs.readFile(path.join(dir, n), 'utf8')) as Json);
  for (const root of Object.values(ROOTS)) if (!docs.has(root)) throw new Error(`${path.join(dir, root)}: the library's schema file is missing`);
  const unresolved = dropUnresolvedRefs(docs);
  // multipleOfPrecision: `weight: 7.27` is a multiple of 0.01 (a float division says otherwise)
  const ajv = new Ajv2020({ allErrors: true, strict: false, multipleOfPrecision: 6 });
  for (const d of docs.values()) ajv.addSchema(d);
  const compile = (kind: TypeKind) => ajv.getSchema(String(docs.get(ROOTS[kind])!.$id)) as ValidateFunction;
  const compiled: Record<TypeKind, ValidateFunction> = { device: compile('device'), module: compile('module') };
  return {
    unresolved,
    validate(file) {
      const check = compiled[file.kind];
      if (check(file.data)) return [];
      return (check.errors ?? []).filter((e) => e.keyword !== 'if').map((e) => problemOf(file, e));
    },
  };
}

/** An Ajv error as the file's author reads it: the key's path, its line, what is wrong. */
function problemOf(file: LibraryFile, e: ErrorObject): FileProblem {
  const at = e.instancePath.split('/').slice(1).map((s) => (/^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, '/').replace(/~0/g, '~')));
  const p = e.params as { additionalProperty?: string; missingProperty?: string; allowedValues?: unknown[]; allowedValue?: unknown };
  const keyPath = p.additionalProperty ? [...at, p.additionalProperty] : p.missingProperty ? [...at, p.missingProperty] : at;
  let message = e.message ?? e.keyword;
  if (p.additionalProperty) message = 'is not a key of the library schema';
  else if (p.missingProperty) message = 'is required';
  else if (p.allowedValues) message = `${JSON.stringify(valueAt(file.data, at))} is not one of ${p.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  else if (e.keyword === 'const') message = `must be ${JSON.stringify(p.allowedValue)}`;
  else message = `${JSON.stringify(valueAt(file.data, at))} ${message}`;
  return { file: file.file, key: keyName(keyPath), line: file.lineOf(p.additionalProperty ? keyPath : at), message };
}

/** `interfaces[3].type` */
export const keyName = (keyPath: (string | number)[]) =>
  keyPath.map((k, i) => (typeof k === 'number' ? `[${k}]` : i ? `.${k}` : k)).join('');

function valueAt(data: unknown, at: (string | number)[]): unknown {
  let v = data;
  for (const k of at) v = (v as Record<string | number, unknown> | undefined)?.[k];
  return v;
}

/**
 * The shipped components.json names `generated_schema#/definitions/interface/properties/rf_role`,
 * which the shipped generated_schema.json lacks: Ajv would refuse to compile. Such refs become
 * `{}` (anything), and are reported.
 */
function dropUnresolvedRefs(docs: Map<string, Json>): string[] {
  const byId = new Map([...docs.values()].map((d) => [String(d.$id ?? ''), d]));
  const missing: string[] = [];
  const resolves = (ref: string) => {
    const [id, pointer = ''] = ref.split('#');
    let node: unknown = byId.get(id);
    for (const part of pointer.split('/').filter(Boolean)) node = (node as Json | undefined)?.[part];
    return node !== undefined;
  };
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    const o = node as Json;
    if (typeof o.$ref === 'string' && o.$ref.startsWith('urn:') && !resolves(o.$ref)) {
      missing.push(o.$ref);
      delete o.$ref;
    }
    Object.values(o).forEach(walk);
  };
  docs.forEach(walk);
  return missing;
}
