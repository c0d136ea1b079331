import { baseConfig, readConfig, type BaseConfig, type RunningServer } from '@inventory/core';
import { freePort } from '@inventory/infra';
import { startBroker } from './broker';
import { createTestDatabase, type DatabaseTemplate } from './database';
import { Client, TEST_SECRET } from './http';

export interface Startable {
  start(port?: number): Promise<RunningServer>;
  stop(): Promise<void>;
}

export type ServiceFactory = (config: BaseConfig) => Startable;

export interface StackOptions {
  /**
   * The stack's services are the real ones: each factory is its service's own
   * `createService`, or a wrapper that only changes its settings. Their
   * database then starts as a copy of one migrated once per run for the
   * same services and models (`CREATE DATABASE … TEMPLATE`) instead of every
   * service migrating an empty one. Leave it off where a factory stands in
   * for a service with migrations of its own, and in suites that check
   * migrations or what a start does to an empty database.
   */
  template?: boolean;
}

export interface Stack {
  urls: Record<string, string>;
  databaseUrl: string;
  config: (name: string) => BaseConfig;
  /** Client for one service, with a superuser identity (signed for that service) by default. */
  client(service: string): Client;
  /** Client for one service's /internal/ endpoints: the service identity of `caller` (the gateway by default). */
  serviceClient(service: string, caller?: string): Client;
  /** Stops one service (an outage); `startService` brings a fresh instance back on the same port. */
  stopService(name: string): Promise<void>;
  startService(name: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Boots services in this process, each on its own real port, talking HTTP to
 * each other exactly as in production, against a fresh database.
 */
export async function bootStack(factories: Record<string, ServiceFactory>, env: Record<string, string> = {}, opts: StackOptions = {}): Promise<Stack> {
  const template = opts.template && !env.DATABASE_URL ? stackTemplate(factories, env) : undefined;
  // as in production every service relays its events and drops its caches on theirs: on a virtual host of
  // the run's broker that is this stack's alone (stacks of different suites never consume each other's events)
  const [db, broker] = await Promise.all([createTestDatabase({ template }), env.AMQP_URL ? null : startBroker()]);
  const names = Object.keys(factories);
  let ports: number[] = [];
  let urls: Record<string, string> = {};
  const config = (name: string) =>
    readConfig(baseConfig, {
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      DATABASE_URL: db.url,
      DATABASE_POOL_MAX: '5',
      QUERY_COUNT_HEADER: 'true',
      INTERNAL_TOKEN_SECRET: TEST_SECRET,
      SERVICE_URLS: Object.entries(urls)
        .map(([n, u]) => `${n}=${u}`)
        .join(','),
      PORT: String(ports[names.indexOf(name)]),
      ...(broker ? { AMQP_URL: broker.url } : {}),
      ...env,
    });
  const started = new Map<string, Startable>();
  const startOne = async (name: string) => {
    const svc = factories[name](config(name));
    await svc.start(ports[names.indexOf(name)]);
    started.set(name, svc);
  };
  const stopAll = async () => {
    for (const s of [...started.values()].reverse()) await s.stop().catch(() => undefined);
    started.clear();
  };
  // a port found free can be taken before a service listens on it (an outbound connection's ephemeral
  // port, another suite's server): the stack then starts again on other ports
  for (let attempt = 1; ; attempt++) {
    ports = await Promise.all(names.map(() => freePort()));
    urls = Object.fromEntries(names.map((n, i) => [n, `http://127.0.0.1:${ports[i]}`]));
    try {
      for (const name of names) await startOne(name);
      break;
    } catch (err) {
      await stopAll();
      if (attempt < 3 && /EADDRINUSE/.test(`${(err as { code?: string }).code} ${(err as Error).message}`)) continue;
      await db.drop();
      await broker?.stop();
      throw err;
    }
  }
  return {
    urls,
    databaseUrl: db.url,
    config,
    client: (service) => new Client(urls[service], { audience: service }),
    serviceClient: (service, caller = 'gateway') => new Client(urls[service], { audience: service }).asService(caller),
    async stopService(name) {
      await started.get(name)?.stop();
      started.delete(name);
    },
    async startService(name) {
      if (!started.has(name)) await startOne(name);
    },
    async stop() {
      await stopAll();
      await db.drop();
      await broker?.stop();
    },
  };
}

/** What a service made by a factory exposes when it is a REST service with a schema of its own. */
interface Migratable {
  migrate(): Promise<unknown>;
  ctx: { name: string; models: Map<string, unknown>; db: { close(): Promise<void> } };
}

function migratable(svc: Startable): svc is Startable & Migratable {
  const s = svc as Partial<Migratable>;
  return typeof s.migrate === 'function' && typeof s.ctx?.name === 'string' && s.ctx.models instanceof Map && typeof s.ctx.db?.close === 'function';
}

/** A declaration as JSON, Maps and Sets spelled out, functions left out and cycles cut: what it declares, not where it sits. */
function declared(value: unknown, parents: object[] = []): unknown {
  if (typeof value === 'function') return undefined;
  if (value === null || typeof value !== 'object') return value;
  if (parents.includes(value)) return '[cycle]';
  const inner = [...parents, value];
  if (value instanceof Map) return ['Map', [...value].map(([k, v]) => [declared(k, inner), declared(v, inner)])];
  if (value instanceof Set) return ['Set', [...value].map((v) => declared(v, inner))];
  if (Array.isArray(value)) return value.map((v) => declared(v, inner));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, declared(v, inner)]));
}

/**
 * The template of a stack whose services are the real ones: a part per
 * service, keyed by its schema and models (a stand-in with models of its own
 * never shares the real service's part; replicas count once), built by the
 * stack's own factory migrating it (its migrations, projection tables and
 * functions, as a start does) with no broker.
 */
function stackTemplate(factories: Record<string, ServiceFactory>, env: Record<string, string>): DatabaseTemplate | undefined {
  const config = (url: string) => {
    const settings: Record<string, string> = { LOG_LEVEL: 'silent', DATABASE_POOL_MAX: '2', INTERNAL_TOKEN_SECRET: TEST_SECRET, PORT: '0', ...env, DATABASE_URL: url };
    delete settings.AMQP_URL;
    return readConfig(baseConfig, settings);
  };
  // made, not started: a service connects to nothing before it starts, and its models are what the key needs
  const probe = config('postgres://template-probe.invalid/none');
  const schemas = new Map<string, ServiceFactory>();
  for (const factory of Object.values(factories)) {
    const svc = factory(probe);
    if (migratable(svc)) schemas.set(JSON.stringify([svc.ctx.name, declared(svc.ctx.models)]), factory);
  }
  if (!schemas.size) return undefined;
  // a part per service schema: stacks of other services share what they have in common (database.ts)
  return {
    parts: [...schemas].map(([key, factory]) => ({
      key,
      async build(url: string) {
        const svc = factory(config(url)) as Startable & Migratable;
        try {
          await svc.migrate();
        } finally {
          await svc.ctx.db.close();
        }
      },
    })),
  };
}
