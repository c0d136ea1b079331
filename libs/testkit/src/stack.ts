import { baseConfig, readConfig, type BaseConfig, type RunningServer } from '@inventory/core';
import { freePort } from '@inventory/infra';
import { startBroker } from './broker';
import { createTestDatabase } from './database';
import { Client, TEST_SECRET } from './http';

export interface Startable {
  start(port?: number): Promise<RunningServer>;
  stop(): Promise<void>;
}

export type ServiceFactory = (config: BaseConfig) => Startable;

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
export async function bootStack(factories: Record<string, ServiceFactory>, env: Record<string, string> = {}): Promise<Stack> {
  // as in production every service relays its events and drops its caches on theirs: on a virtual host of
  // the run's broker that is this stack's alone (stacks of different suites never consume each other's events)
  const [db, broker] = await Promise.all([createTestDatabase(), env.AMQP_URL ? null : startBroker()]);
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
