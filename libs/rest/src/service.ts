import type { Express, Request, Response, NextFunction } from 'express';
import {
  Metrics,
  createApp,
  createLogger,
  listen,
  shutdownOptions,
  type BaseConfig,
  type Logger,
  type RunningServer,
  NotFound,
  parseServiceUrls,
  PermissionDenied,
} from '@inventory/core';
import { IDENTITY_HEADER, verifyIdentity, parseExemptList } from '@inventory/auth';
import { ServiceClient } from '@inventory/refs';
import { Consistency, OutboxRelay, brokerReachable, subscribeChanges, waitForBroker, type ChangeSubscription } from '@inventory/events';
import { ConsistencyGate, type Reads, Db, waitForDatabase, type AfterCommit, type ExtrasApi, type ModelDef, areaOf, type ServiceContext, migrate, type Migration } from './model';
import { RemoteExtras, ensureProjections, projectedModels, tagProjection } from './projections';
import { mountModel, mountInternal } from './http';
import { asOfGate, baseUrl, ensureConfigContextFunctions, ensureHistory, pruneHistory } from './read';
import { periodic, type Worker } from './periodic';
import { projectionFeed, projectionQueue, type ProjectionFeed } from './references';
import { registerServiceGauges } from './service-metrics';
import { mountGraphql } from './graphql';

export type { Worker } from './periodic';

export interface RestServiceOptions {
  /** Service name; also its database schema. */
  name: string;
  /** API area served (the segment after /api/). */
  area: string;
  /** Other areas served whole by this service, each under its own name (decision 028: `vpn` by ipam). */
  areas?: string[];
  config: BaseConfig;
  models: ModelDef[];
  migrations: Migration[];
  /** The extras service passes its local implementation. */
  extras?: (ctx: Omit<ServiceContext, 'extras'>) => ExtrasApi;
  /** Routes that are really the service's own (mounted before the model routes). */
  routes?: (app: Express, ctx: ServiceContext) => void;
  /** Endpoints under /api/<area>/ that are not models but belong in the area listing. */
  extraEndpoints?: string[];
  /** Requests whose body one of `routes` reads itself, as a stream (an image upload): not parsed as JSON. */
  streamedBody?: (req: Request) => boolean;
  /** The service's own background work (started after the relay and projections, stopped before them). */
  workers?: (ctx: ServiceContext) => Worker[];
  /**
   * Other services' events the workers apply to state this service serves,
   * besides its projections, by the worker's queue (extras' change log:
   * `#`, every event): their writers wait for its confirmation too.
   */
  reads?: Reads;
  /** The instance's own settings and resources, for its hooks and routes (`ctx.own`; never set on shared declarations). */
  own?: unknown;
  /** After each committed write, with the model and its changes: the instance's own caches and files (`ctx.afterCommit`). */
  afterCommit?: AfterCommit;
  log?: Logger;
}

export interface RestService {
  ctx: ServiceContext;
  app: Express;
  /** Publishes the service's outbox (null without AMQP_URL). */
  relay: OutboxRelay | null;
  /** Keeps the projections of other services' objects (idle when there are none, or no broker). */
  projections: ProjectionFeed;
  /**
   * Brings the service's schema up to date and returns the migrations it
   * applied: its pending migrations, then what it builds beside them (the
   * projection tables, the config-context functions). `start` runs it; the
   * migration job (deploy/migrate.js) runs it alone, before any replica starts.
   */
  migrate(): Promise<string[]>;
  /** Waits for PostgreSQL (and RabbitMQ), migrates, listens, starts the relay, the projections and the workers. */
  start(port?: number): Promise<RunningServer>;
  /**
   * Shuts down gracefully: readiness 503, the listener closed, requests in
   * flight answered; then the workers and consumers stop (what they hold is
   * finished or given back to the queue), the relay publishes what is
   * committed, and the pools close.
   */
  stop(): Promise<void>;
}

/** Paths that answer without an identity token. */
const OPEN_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
/**
 * Paths a user identity may reach: the public API, the admin pages the
 * gateway lets staff reach (/admin/...; the service checks staff again) and
 * uploaded files (/media/..., extras' image attachments). Everything else
 * (/internal/*, and whatever else is not under those) is for other
 * services: it needs an identity with the service claim. Case-insensitive,
 * as routing is.
 */
const PUBLIC_PATH = /^\/(api|admin|media)\//i;
const SERVICE_ONLY = 'Internal endpoints accept only a service identity.';

/** The change events that make cached tag and custom-field definitions stale. */
export const EXTRAS_DEFINITION_EVENTS = ['extras.tag.#', 'extras.customfield.#', 'extras.customfieldchoiceset.#'];

export function createRestService(opts: RestServiceOptions): RestService {
  const { config } = opts;
  const log = opts.log ?? createLogger(opts.name, config.LOG_LEVEL);
  const { ctx, hub } = serviceContext(opts, log);
  const app = serviceApp(opts, ctx);
  // the outbox is relayed when a broker is configured; without one, events wait in it
  const relay = config.AMQP_URL
    ? new OutboxRelay({
        databaseUrl: config.DATABASE_URL,
        schema: opts.name,
        amqpUrl: config.AMQP_URL,
        log,
        // sent rows stay as long as the change log keeps changes: the by-request filters read them
        retentionHours: config.CHANGELOG_RETENTION * 24,
        metrics: ctx.metrics,
      })
    : null;
  // other services' objects this one refers to or counts, kept locally from their events
  const projections = projectionFeed(ctx, config);
  const workers = [...(opts.workers?.(ctx) ?? []), ...historyRetention(ctx, config.HISTORY_RETENTION)];
  const background = lifecycle(opts, ctx, { hub, relay, projections, workers });
  const service: RestService = {
    ctx,
    app,
    relay,
    projections,
    async migrate() {
      const applied = await migrate(config.DATABASE_URL, opts.name, opts.models, opts.migrations);
      if (applied.length) log.info({ applied }, 'migrations applied');
      await ensureProjections(ctx);
      await ensureConfigContextFunctions(ctx);
      await ensureHistory(ctx);
      return applied;
    },
    async start(port = config.PORT) {
      // started before its database or broker (a compose file, a cluster coming up): wait for them, do not crash
      await Promise.all([waitForDatabase(config.DATABASE_URL, log), config.AMQP_URL ? waitForBroker(config.AMQP_URL, log) : undefined]);
      // a no-op after the migration job (one query finds every migration recorded; sequelize is not loaded); the job
      // itself fails fast on an unreachable database and is retried by its runner (a Job's backoff, compose's order)
      await service.migrate();
      const server = await listen(app, port, config.HOST, shutdownOptions(config));
      await background.start(server);
      log.info({ port: server.port }, `${opts.name} listening`);
      return server;
    },
    async stop() {
      await background.stop();
      await ctx.db.close();
      log.info(`${opts.name} stopped`);
    },
  };
  return service;
}

/** The instance's context: its database, models, clients, settings, metrics, and the consistency gate with its broker hub. */
function serviceContext(opts: RestServiceOptions, log: Logger): { ctx: ServiceContext; hub: Consistency | null } {
  const { config } = opts;
  const db = new Db(config.DATABASE_URL, opts.name, config.DATABASE_POOL_MAX);
  const metrics = new Metrics(opts.name);
  registerServiceGauges(metrics, db);
  const refs = new ServiceClient(opts.name, config.SERVICE_URLS, config.INTERNAL_TOKEN_SECRET);
  const base: Omit<ServiceContext, 'extras'> = {
    name: opts.name,
    area: opts.area,
    areas: opts.areas ?? [],
    db,
    models: new Map(opts.models.map((m) => [m.label, m])),
    refs,
    settings: {
      paginateCount: config.PAGINATE_COUNT,
      maxPageSize: config.MAX_PAGE_SIZE,
      strictFiltering: config.STRICT_FILTERING,
      publicUrl: config.PUBLIC_URL,
      cursorSecret: config.INTERNAL_TOKEN_SECRET,
      loginRequired: config.LOGIN_REQUIRED,
      exemptViewPermissions: parseExemptList(config.EXEMPT_VIEW_PERMISSIONS),
      templateLimits: { timeMs: config.TEMPLATE_TIME_LIMIT_MS, outputChars: config.TEMPLATE_OUTPUT_LIMIT },
      eventBase: config.PUBLIC_URL?.replace(/\/$/, '') || parseServiceUrls(config.SERVICE_URLS).gateway || undefined,
    },
    log,
    metrics,
    own: opts.own,
    afterCommit: opts.afterCommit,
  };
  // tags render and filter from this service's projection of them; extras is asked only for what it does not hold yet
  const ctx: ServiceContext = { ...base, extras: opts.extras ? opts.extras(base) : new RemoteExtras(refs, () => tagProjection(ctx)) };
  // writes wait for the services that show their objects; this service confirms what it applied of others'
  const hub = config.AMQP_URL ? new Consistency({ amqpUrl: config.AMQP_URL, service: opts.name, log }) : null;
  ctx.consistency = new ConsistencyGate({
    service: opts.name,
    refs,
    ownReads: () => {
      const projected = [...projectedModels(ctx).keys()];
      return { ...(projected.length && config.AMQP_URL ? { [projectionQueue(opts.name)]: projected } : {}), ...opts.reads };
    },
    hub,
    waitMs: config.CONSISTENCY_WAIT_MS ?? 2000,
    log,
    metrics,
  });
  return { ctx, hub };
}

/** The HTTP face: identity check, internal endpoints, the area's index, the service's own routes, then every model's. */
function serviceApp(opts: RestServiceOptions, ctx: ServiceContext): Express {
  const { config } = opts;
  return createApp({
    name: opts.name,
    log: ctx.log,
    queryCountHeader: config.QUERY_COUNT_HEADER,
    maxBodySize: config.MAX_BODY_SIZE,
    streamedBody: opts.streamedBody,
    metrics: ctx.metrics,
    metricsToken: config.METRICS_TOKEN,
    readiness: [
      () => ctx.db.ping(),
      async () => {
        if (config.AMQP_URL && !(await brokerReachable(config.AMQP_URL))) throw new Error('RabbitMQ is unreachable');
      },
    ],
    routes: (app) => {
      app.use((req: Request, res: Response, next: NextFunction) => {
        if (OPEN_PATHS.has(req.path)) return next();
        // only a token signed for this service; a user's (forwarded by the gateway) reaches /api/ only
        const identity = verifyIdentity(config.INTERNAL_TOKEN_SECRET, req.headers[IDENTITY_HEADER] as string | undefined, opts.name);
        if (!identity.service && !PUBLIC_PATH.test(req.path)) throw new PermissionDenied(SERVICE_ONLY);
        res.locals.identity = identity;
        next();
      });
      // ?as_of=: reads in the past, writes refused (read/as-of.ts)
      app.use(asOfGate(ctx));
      mountInternal(app, ctx);
      mountGraphql(app, ctx, config.INTERNAL_TOKEN_SECRET);
      for (const area of [opts.area, ...(opts.areas ?? [])]) {
        app.get(`/api/${area}/`, (req, res) => {
          const b = baseUrl(req, config.PUBLIC_URL);
          const extra = area === opts.area ? (opts.extraEndpoints ?? []) : [];
          const endpoints = [...opts.models.filter((m) => areaOf(m, ctx) === area).map((m) => m.endpoint), ...extra].sort();
          res.json(Object.fromEntries(endpoints.map((e) => [e, `${b}/api/${area}/${e}/`])));
        });
      }
      opts.routes?.(app, ctx);
      for (const model of opts.models) mountModel(app, ctx, model);
      app.use((_req, _res, next) => next(new NotFound()));
    },
  });
}

/** Hourly pruning of versions older than `HISTORY_RETENTION` days (none when 0: history is kept whole). */
function historyRetention(ctx: ServiceContext, days: number): Worker[] {
  if (!days) return [];
  const prune = () => pruneHistory(ctx, days).catch((err: unknown) => ctx.log.warn({ err }, 'history pruning failed'));
  return [periodic(prune, 3_600_000)];
}

/**
 * What runs beside the HTTP server, started once it listens and stopped
 * once it has drained: the consistency hub, the relay, the projections,
 * the cache subscription and the service's workers.
 */
function lifecycle(
  opts: RestServiceOptions,
  ctx: ServiceContext,
  parts: { hub: Consistency | null; relay: OutboxRelay | null; projections: ProjectionFeed; workers: Worker[] },
): { start(server: RunningServer): Promise<void>; stop(): Promise<void> } {
  const { config } = opts;
  const { hub, relay, projections, workers } = parts;
  let server: RunningServer | null = null;
  let changes: ChangeSubscription | null = null;
  return {
    async start(listening) {
      server = listening;
      hub?.start();
      relay?.start();
      projections.start();
      // confirmations flow and this service's queue is bound before it counts as started (bounded: a broker outage does not hold it)
      await Promise.race([Promise.all([hub?.ready, projections.consumer?.ready]), new Promise((r) => setTimeout(r, 5000).unref())]);
      if (config.AMQP_URL) {
        // every replica drops its tag and custom-field caches on their change events (and after a reconnect: some may have been missed)
        changes = subscribeChanges({
          amqpUrl: config.AMQP_URL,
          bindings: EXTRAS_DEFINITION_EVENTS,
          onEvent: () => ctx.extras.invalidate(),
          onConnect: () => ctx.extras.invalidate(),
          log: ctx.log,
        });
        await Promise.race([changes.ready, new Promise((r) => setTimeout(r, 5000).unref())]);
      }
      for (const w of workers) await w.start();
    },
    async stop() {
      // no request is answered after this: every write the relay must publish is committed
      if (server) await server.close();
      server = null;
      for (const w of [...workers].reverse()) await w.stop();
      await projections.stop();
      await changes?.stop();
      changes = null;
      await hub?.stop();
      await relay?.stop();
    },
  };
}
