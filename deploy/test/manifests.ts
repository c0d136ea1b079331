/**
 * What the deployment tests read: the Kubernetes objects of k8s/ (as
 * `kubectl apply -k` would make them, the generators included), the compose
 * file, the Dockerfile, and the environment variables the image's code reads,
 * derived from the config schemas and the `process.env` reads of the packages
 * the image installs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import YAML from 'yaml';
import type { Joi } from '@inventory/core';

export const ROOT = path.resolve(__dirname, '../..');
export const K8S = path.join(ROOT, 'k8s');

export type Obj = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; [k: string]: any };

/** Services with a main.ts: what the image can run (the gateway among them). */
export function serviceNames(): string[] {
  return fs
    .readdirSync(path.join(ROOT, 'services'))
    .filter((n) => fs.existsSync(path.join(ROOT, 'services', n, 'src', 'main.ts')))
    .sort();
}

export function readYaml(file: string): any {
  return YAML.parse(fs.readFileSync(file, 'utf8'), { merge: true });
}

/** KEY=VALUE lines (kustomize's `envs` files): comments and blank lines skipped. */
export function readEnvFile(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const t = line.trim();
    if (!t || t.startsWith('#')) continue;
    const eq = t.indexOf('=');
    if (eq < 1) throw new Error(`${file}: not KEY=VALUE: ${line}`);
    out[t.slice(0, eq)] = t.slice(eq + 1);
  }
  return out;
}

export interface Kustomization {
  resources: string[];
  configMapGenerator?: { name: string; envs: string[] }[];
  secretGenerator?: { name: string; envs: string[] }[];
  [k: string]: any;
}

export const kustomization = (): Kustomization => readYaml(path.join(K8S, 'kustomization.yaml'));

/**
 * A generator's env file; the Secret's is made by the operator from its
 * committed template (`secrets.env` from `secrets.env.example`), so the
 * template stands in for it here.
 */
export function generatorFile(name: string): string {
  const file = path.join(K8S, name);
  return fs.existsSync(`${file}.example`) ? `${file}.example` : file;
}

/** Every object `kubectl apply -k k8s/` creates: the resources' documents and the generated ConfigMaps and Secrets. */
export function k8sObjects(): Obj[] {
  const k = kustomization();
  const objects: Obj[] = [];
  for (const file of k.resources) {
    for (const doc of YAML.parseAllDocuments(fs.readFileSync(path.join(K8S, file), 'utf8'))) {
      if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0].message}`);
      const o = doc.toJS();
      if (o) objects.push(o);
    }
  }
  const data = (envs: string[]) => Object.assign({}, ...envs.map((e) => readEnvFile(generatorFile(e))));
  for (const g of k.configMapGenerator ?? []) objects.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: g.name }, data: data(g.envs) });
  for (const g of k.secretGenerator ?? []) objects.push({ apiVersion: 'v1', kind: 'Secret', metadata: { name: g.name }, type: 'Opaque', stringData: data(g.envs) });
  return objects;
}

export const ofKind = (objects: Obj[], kind: string) => objects.filter((o) => o.kind === kind);

/** One variable of a config schema: whether it has a default (or may be left unset). */
export interface SchemaVar {
  name: string;
  default?: unknown;
  required: boolean;
}

/** The schema a service's main.ts reads its config with (`readConfigOrExit(<schema>)`), found from the source. */
export function configSchemaOf(service: string): Joi.ObjectSchema {
  const main = fs.readFileSync(path.join(ROOT, 'services', service, 'src', 'main.ts'), 'utf8');
  const name = /readConfigOrExit\((\w+)\)/.exec(main)?.[1];
  if (!name) throw new Error(`services/${service}/src/main.ts: no readConfigOrExit(<schema>)`);
  const from = new RegExp(`import \\{[^}]*\\b${name}\\b[^}]*\\} from '([^']+)'`).exec(main)?.[1];
  if (!from) throw new Error(`services/${service}/src/main.ts: where does ${name} come from?`);
  const mod = from.startsWith('.') ? require(path.join(ROOT, 'services', service, 'src', from)) : require(from);
  return mod[name];
}

export function schemaVars(schema: Joi.ObjectSchema): SchemaVar[] {
  const keys = (schema.describe() as { keys: Record<string, { flags?: { default?: unknown; presence?: string } }> }).keys;
  return Object.entries(keys).map(([name, d]) => ({ name, default: d.flags?.default, required: d.flags?.presence === 'required' }));
}

/** The workspace packages the image installs: every service and, through their dependencies, the libraries they use. */
export function imagePackages(): string[] {
  const dirs = new Map<string, string>();
  for (const top of ['libs', 'services']) {
    for (const n of fs.readdirSync(path.join(ROOT, top))) {
      const pkg = path.join(ROOT, top, n, 'package.json');
      if (fs.existsSync(pkg)) dirs.set(JSON.parse(fs.readFileSync(pkg, 'utf8')).name, path.join(top, n));
    }
  }
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name) || !dirs.has(name)) return;
    seen.add(name);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, dirs.get(name)!, 'package.json'), 'utf8'));
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep);
  };
  for (const [name, dir] of dirs) if (dir.startsWith('services/')) visit(name);
  return [...seen].map((n) => dirs.get(n)!).sort();
}

/** The deploy/ scripts the Dockerfile copies into the image. */
export function imageScripts(): string[] {
  const dockerfile = fs.readFileSync(path.join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
  return [...dockerfile.matchAll(/^COPY (?!--from)(.+) \.\/deploy\/$/gm)].flatMap((m) => m[1].split(/\s+/));
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : /\.(ts|js)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Names read as `process.env.NAME` (or through an `env` parameter that is the environment: `env.NAME`). */
export function envReads(files: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\b(?:process\.env|env)(?:\.([A-Z][A-Z0-9_]+)|\[['"]([A-Z][A-Z0-9_]+)['"]\])/g)) {
      const name = m[1] ?? m[2];
      out.set(name, [...(out.get(name) ?? []), path.relative(ROOT, file)]);
    }
  }
  return out;
}

/** Every variable the image's code reads: its services' config schemas, and its packages' and scripts' direct reads. */
export function imageVariables(): { schemaVars: Map<string, SchemaVar>; reads: Map<string, string[]> } {
  const vars = new Map<string, SchemaVar>();
  for (const s of serviceNames()) {
    for (const v of schemaVars(configSchemaOf(s))) {
      const known = vars.get(v.name);
      // a variable with a default in one schema and required in another counts as required
      if (!known || (v.required && !known.required)) vars.set(v.name, v);
    }
  }
  const files = [...imagePackages().flatMap((dir) => sourceFiles(path.join(ROOT, dir, 'src'))), ...imageScripts().map((f) => path.join(ROOT, f))];
  const reads = envReads(files);
  for (const name of SOURCES_ONLY) reads.delete(name);
  return { schemaVars: vars, reads };
}

/**
 * Read only where the TypeScript sources run as they are (the tests): the
 * loader that threads started from them need (libs/templates' render pool).
 * Set by the test run and ts-register itself, never configured.
 */
const SOURCES_ONLY = ['TS_REGISTER'];
