import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { Metrics, NotFound, createLogger, errorHandler, httpMetrics, listen, metricsHandler, parseServiceUrls, shutdownOptions, type Logger, type RunningServer } from '@inventory/core';
import { subscribeChanges, type ChangeEvent, type ChangeSubscription } from '@inventory/events';
import { ServiceClient } from '@inventory/refs';
import { mountAdminPages } from './pages/admin-pages';
import { authenticate } from './auth/auth';
import { BrowsableApi } from './pages/browsable';
import type { GatewayConfig } from './config';
import { docsAssets, mountDocs } from './endpoints/docs';
import { wantsHtml } from './pages/html';
import { IdentityMinter } from './auth/identity';
import { mountInternal } from './forwarding/internal';
import { mountMedia } from './forwarding/media';
import { mountPages } from './pages/pages';
import { createServiceProxies } from './forwarding/proxy';
import { trailingSlash } from './forwarding/redirect';
import { requestContext } from './forwarding/request-id';
import { areaRoot, mountRoot } from './endpoints/root';
import { routeFor } from './forwarding/routing';
import { SchemaBuilder } from './endpoints/schema';
import { Sessions, sessionSecret } from './auth/session';
import { mountStatus, probeServices } from './endpoints/status';
import { TokenVerifier } from './auth/tokens';
import { withFastPath } from './forwarding/fast-path';
import { AllowedHosts } from './forwarding/allowed-hosts';
import { TrustedProxies, identifyClient } from './forwarding/forwarded';
import type { RequestListener } from 'node:http';
import { Composition } from './graphql/compose';
import { graphiqlAssets } from './graphql/graphiql';
import { mountGraphql } from './graphql/endpoint';
import { SubgraphClient } from './graphql/subgraphs';

export interface Gateway {
  app: Express;
  /** Token verification cache (exposed for the users service's invalidation and for tests). */
  tokens: TokenVerifier;
  start(port?: number): Promise<RunningServer>;
  stop(): Promise<void>;
}

/**
 * The single entry point of the API. It owns no data: it authenticates the
 * caller, mints the internal identity, and proxies `/api/<area>/...` to the
 * owning service; it answers /api/, status, schema and docs itself.
 *
 * Unlike the services it does not use createApp: request bodies must stream
 * through to the services untouched, so nothing here parses them (except its
 * own internal endpoint).
 */
export function createGateway(config: GatewayConfig, opts: { log?: Logger } = {}): Gateway {
  const log = opts.log ?? createLogger('gateway', config.LOG_LEVEL);
  const parts = gatewayParts(config, log);
  const { tokens, proxies, sessions, schema, drop, http } = parts;
  const app = gatewayApp(config, log, parts);
  let server: RunningServer | null = null;
  let changes: ChangeSubscription | null = null;
  return {
    app,
    tokens,
    async start(port = config.PORT) {
      if (config.AMQP_URL && !changes) {
        // every gateway replica drops cached verifications and session users on the users service's change events
        changes = subscribeChanges({
          amqpUrl: config.AMQP_URL,
          bindings: AUTH_EVENTS,
          onEvent: (event) => void drop(authFilter(event)),
          onConnect: () => void drop({}), // events may have been missed while disconnected
          log,
        });
        await Promise.race([changes.ready, new Promise((r) => setTimeout(r, 5000).unref())]);
      }
      const listener = withFastPath(app as unknown as RequestListener, { verifier: tokens, proxies, urls: parts.urls, log, trusted: parts.trusted, allowed: parts.allowed, metrics: http });
      server = await listen(listener, port, config.HOST, shutdownOptions(config));
      log.info({ port: server.port, services: Object.keys(parts.urls) }, 'gateway listening');
      return server;
    },
    async stop() {
      if (server) await server.close();
      server = null;
      await changes?.stop();
      changes = null;
      proxies.close();
      tokens.clear();
      sessions.clear();
      schema.clear();
      parts.graphql.clear();
    },
  };
}

/** What the gateway is made of: the services it routes to, its token and session caches, its proxies and pages. */
function gatewayParts(config: GatewayConfig, log: Logger) {
  // a shared SERVICE_URLS may name the gateway itself; probing or proxying to ourselves would loop
  const { gateway: _self, ...urls } = parseServiceUrls(config.SERVICE_URLS);
  const refs = new ServiceClient('gateway', urls, config.INTERNAL_TOKEN_SECRET);
  const trusted = new TrustedProxies(config.TRUSTED_PROXIES);
  const allowed = new AllowedHosts(config.ALLOWED_HOSTS);
  const tokens = new TokenVerifier(refs, config.TOKEN_CACHE_SECONDS * 1000, log);
  const minter = new IdentityMinter(config.INTERNAL_TOKEN_SECRET);
  const sessions = new Sessions({ secret: sessionSecret(config), users: refs, cacheMs: config.TOKEN_CACHE_SECONDS * 1000, log, publicUrl: config.PUBLIC_URL });
  const drop = (filter: AuthFilter): number => tokens.invalidate(filter) + sessions.invalidate(filter);
  // a write to users through this gateway drops its own auth caches before the client hears back (read your
  // own writes: a token deleted here fails here at once); every replica drops them on the change events too
  const onWrite = (service: string) => {
    if (service === 'users') drop({});
  };
  const proxies = createServiceProxies(urls, minter, config.PUBLIC_URL, log, config.MAX_BODY_SIZE, onWrite);
  const pages = new BrowsableApi({ urls, minter, publicUrl: config.PUBLIC_URL, maxBodySize: config.MAX_BODY_SIZE, onWrite });
  const schema = new SchemaBuilder(refs, Object.keys(urls), log);
  const root = areaRoot(urls, proxies, minter, config.PUBLIC_URL, pages);
  const graphql = new Composition(Object.keys(urls), new SubgraphClient(urls, config.INTERNAL_TOKEN_SECRET, minter), log, config.GRAPHQL_RECOMPOSE_MS);
  const metrics = new Metrics('gateway');
  return { urls, refs, trusted, allowed, tokens, minter, sessions, drop, proxies, pages, schema, graphql, root, metrics, http: httpMetrics(metrics) };
}

type GatewayParts = ReturnType<typeof gatewayParts>;

/** The gateway's routes, in order: probes and metrics, its pages, authentication, its own endpoints, then the services. */
function gatewayApp(config: GatewayConfig, log: Logger, parts: GatewayParts): Express {
  const { urls, refs, trusted, tokens, minter, sessions, drop, proxies, pages, schema, graphql, root, metrics, http } = parts;
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(requestContext(log, http));
  // who the client is, decided once (the fast path's listener has usually done it already)
  app.use((req, _res, next) => {
    identifyClient(req, trusted);
    next();
  });
  mountProbes(app, urls);
  // the gateway's own figures (a service's are on its own port: nothing under /api/ reaches them)
  app.get('/metrics', metricsHandler(metrics, config.METRICS_TOKEN));
  mountInternal(app);
  app.use(docsAssets());
  app.use(graphiqlAssets());
  app.use(trailingSlash());
  mountPages(app, { sessions, refs, minter, usersUrl: urls.users, publicUrl: config.PUBLIC_URL, log, onUsersWrite: () => drop({}) });
  mountAdminPages(app, { sessions, verifier: tokens, proxies, urls, publicUrl: config.PUBLIC_URL });
  const auth = authenticate(tokens, config.LOGIN_REQUIRED, sessions);
  mountMedia(app, { authenticate: auth, proxies, urls });
  mountGraphql(app, {
    composition: graphql,
    authenticate: auth,
    limits: { maxDepth: config.GRAPHQL_MAX_DEPTH, maxCost: config.GRAPHQL_MAX_COST },
    publicUrl: config.PUBLIC_URL,
    maxBodySize: config.MAX_BODY_SIZE,
  });
  app.use((req, _res, next) => next(req.path.startsWith('/api/') ? undefined : new NotFound()));
  app.use(auth);
  mountRoot(app, config.PUBLIC_URL, pages);
  mountStatus(app, urls, refs, pages);
  mountDocs(app, schema);
  app.use(async (req: Request, res: Response, next: NextFunction) => {
    const route = routeFor(req.path);
    if (!route) throw new NotFound();
    if (route.root) return root(route, req, res, next);
    // an area whose service is not deployed has no endpoints
    if (!(route.service in urls)) throw new NotFound();
    // a browser gets the browsable API's page; every other client the service's answer as it is
    if (wantsHtml(req)) return pages.endpoint(route.service, req, res);
    return proxies.forward(route.service, req, res, next);
  });
  app.use(pages.errors());
  app.use(errorHandler(log));
  return app;
}

/** `/healthz` (alive) and `/readyz`: ready when it can authenticate (users answers), the others' states listed. */
function mountProbes(app: Express, urls: Record<string, string>): void {
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // one service down must not take every replica out of a load balancer, since the rest of the API still works
  app.get('/readyz', async (_req, res) => {
    const services = await probeServices(urls);
    const down = Object.keys(services).filter((s) => services[s] !== 'ok');
    const ready = !('users' in services) || services.users === 'ok';
    const detail = down.length ? { detail: `Unavailable: ${down.join(', ')}` } : {};
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', ...detail, services });
  });
}

/** The change events that may revoke what a cached token verification or session user granted. */
export const AUTH_EVENTS = ['users.#', 'auth.#'];

type AuthFilter = { token_ids?: number[]; user_ids?: number[] };

/** What one users-service change event makes stale: a token, a user, or (groups, permissions...) everything. */
export function authFilter(event: Pick<ChangeEvent, 'model' | 'object_id'>): AuthFilter {
  const model = event.model.split('.').pop();
  const id = Number(event.object_id);
  if (!Number.isSafeInteger(id)) return {};
  if (model === 'token') return { token_ids: [id] };
  if (model === 'user') return { user_ids: [id] };
  return {};
}
