import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { runWithContext } from './context';
import { HttpError, UnsupportedMediaType, BadRequest, Conflict, PayloadTooLarge, TooManyRequests } from './errors';
import { checkJsonBody } from './input';
import type { Logger } from './logging';
import { Metrics, httpMetrics, httpMetricsMiddleware, metricsHandler } from './metrics';

export type ReadinessCheck = () => Promise<void>;

/** Default MAX_BODY_SIZE: 10 MB. */
export const DEFAULT_MAX_BODY_SIZE = 10 * 1024 * 1024;

/**
 * Reads the body of requests that carry one and parses JSON; anything else is 415.
 * A body over `limit` is read to its end and dropped (the client's keep-alive
 * connection stays usable), then answered with 413.
 */
export function jsonBody(limit = DEFAULT_MAX_BODY_SIZE, streamed?: (req: Request) => boolean) {
  return (req: Request, _res: Response, proceed: NextFunction): void => {
    // a body its route reads as a stream (a multipart upload) is left unread
    if (streamed?.(req)) return proceed();
    const length = req.headers['content-length'];
    const chunked = req.headers['transfer-encoding'] !== undefined;
    // no body (every GET): still in the request's context, and no AsyncResource made per request
    if (!chunked && (length === undefined || length === '0')) {
      req.body = undefined;
      return proceed();
    }
    // stream events run outside the request's async context: re-enter it before going on
    const next = AsyncResource.bind(proceed) as NextFunction;
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
    });
    req.on('error', (err) => next(err));
    req.on('end', () => {
      if (size > limit) return next(new PayloadTooLarge(limit));
      const raw = Buffer.concat(chunks).toString('utf8');
      if (raw.length === 0) {
        req.body = undefined;
        return next();
      }
      const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (type !== 'application/json' && !type.endsWith('+json')) {
        return next(new UnsupportedMediaType(type || 'none'));
      }
      try {
        req.body = JSON.parse(raw);
      } catch (err) {
        return next(new BadRequest(`JSON parse error - ${(err as Error).message}`));
      }
      try {
        checkJsonBody(req.body, raw);
      } catch (err) {
        return next(err);
      }
      next();
    });
  };
}

/**
 * Writes a JSON answer. Lighter than express's res.json (no ETag, freshness
 * or charset work), which matters on list pages of a thousand objects.
 */
export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** Text as HTML: the five characters that could open markup or end an attribute, escaped (every page of ours goes through it). */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/**
 * Sends one of our HTML pages (sign-in, tokens, the browsable API, the
 * webhooks admin page) with the headers every one carries: never cached or
 * framed, not sniffed, and only what `csp` allows runs or loads.
 */
export function sendHtml(res: Response, status: number, html: string, csp: string): void {
  res.status(status);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Content-Security-Policy', csp);
  res.send(html);
}

/** What a 500 says: nothing about the failure itself (that goes to the log with the request id). */
export const SERVER_ERROR = { error: 'Internal server error', exception: 'ServerError', detail: 'Internal server error' };

/**
 * Safety net for database errors the validation did not foresee: they come
 * from the request's values or from a concurrent writer, never from the
 * server being broken, so they answer 4xx (SQLSTATE classes 22, 23, 40).
 */
export function databaseError(err: unknown): HttpError | null {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return null;
  if (code.startsWith('22')) return new BadRequest(`Invalid value: ${(err as Error).message}`);
  if (code === '23505') return new Conflict('The object conflicts with another one (a unique value is already taken).');
  if (code === '23503') return new Conflict('The object is referenced by, or refers to, an object that changed concurrently; retry the request.');
  if (code.startsWith('23')) return new BadRequest(`Invalid value: ${(err as Error).message}`);
  if (code === '40001' || code === '40P01') return new Conflict(CONCURRENT_CHANGE);
  return null;
}

/** 409 text when a write kept colliding with concurrent writes after its retries. */
export const CONCURRENT_CHANGE = 'The request conflicted with concurrent changes to the same objects; retry it.';

/** The one place where errors become responses. */
export function errorHandler(log: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) {
      res.end();
      return;
    }
    if (err instanceof HttpError) {
      if (err instanceof TooManyRequests) res.setHeader('Retry-After', String(err.retryAfterSeconds));
      sendJson(res, err.status, err.body);
      return;
    }
    const mapped = databaseError(err);
    if (mapped) {
      log.warn({ err: { code: (err as { code?: string }).code, message: (err as Error).message }, method: req.method, path: req.path }, 'database refused the request');
      sendJson(res, mapped.status, mapped.body);
      return;
    }
    // body-parser style errors that carry a status (e.g. aborted requests)
    const status = (err as { status?: number }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      res.status(status).json({ detail: (err as Error).message });
      return;
    }
    log.error({ err, method: req.method, path: req.path, request_id: res.getHeader('X-Request-ID') }, 'unhandled error');
    sendJson(res, 500, SERVER_ERROR);
  };
}

export interface ServiceOptions {
  name: string;
  /** Send X-Query-Count with the number of SQL statements the request ran. */
  queryCountHeader?: boolean;
  log: Logger;
  readiness?: ReadinessCheck[];
  /** Largest request body accepted (bytes); default DEFAULT_MAX_BODY_SIZE. */
  maxBodySize?: number;
  /** Requests whose body a route reads itself, as a stream (an image upload): not read as JSON. */
  streamedBody?: (req: Request) => boolean;
  /** The instance's metrics, served at /metrics (a registry of its own when not given). */
  metrics?: Metrics;
  /** METRICS_TOKEN: /metrics wants it as a bearer token (open when unset). */
  metricsToken?: string;
  /** Attach routes; called after the common middleware. */
  routes: (app: Express) => void;
}

export interface RunningServer {
  port: number;
  url: string;
  server: http.Server;
  /** Shuts down gracefully (see `listen`); resolves once every connection is closed. */
  close(): Promise<void>;
}

/** Express app with request ids, JSON bodies, health and metrics endpoints and the error handler. */
export function createApp(opts: ServiceOptions): Express {
  const app = express();
  const metrics = opts.metrics ?? new Metrics(opts.name);
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'extended');
  app.use(httpMetricsMiddleware(httpMetrics(metrics)));
  app.use((req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && /^[0-9a-f-]{36}$/i.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-ID', requestId);
    const ctx = { requestId, queries: 0 };
    if (opts.queryCountHeader) {
      // set just before the head is written, when every query has run
      const writeHead = res.writeHead;
      res.writeHead = function (this: Response, ...args: unknown[]) {
        if (!this.headersSent) this.setHeader('X-Query-Count', String(ctx.queries));
        return (writeHead as (...a: unknown[]) => Response).apply(this, args);
      } as typeof res.writeHead;
    }
    runWithContext(ctx, () => next());
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      for (const check of opts.readiness ?? []) await check();
      res.json({ status: 'ready' });
    } catch (err) {
      res.status(503).json({ status: 'unavailable', detail: (err as Error).message });
    }
  });
  app.get('/metrics', metricsHandler(metrics, opts.metricsToken));
  app.use(jsonBody(opts.maxBodySize, opts.streamedBody));
  opts.routes(app);
  app.use(errorHandler(opts.log));
  return app;
}

export interface ShutdownOptions {
  /** SHUTDOWN_DELAY: how long readiness answers 503 while requests are still served as usual, before the listener closes (ms). */
  delayMs?: number;
  /** SHUTDOWN_TIMEOUT: how long requests in flight may take once the listener is closed; then their connections are cut (ms). */
  timeoutMs?: number;
  /** The readiness path, answered 503 from the first moment of a shutdown (default `/readyz`). */
  readinessPath?: string;
}

/** A connection's requests under way, and since when it has had none. */
interface Connection {
  busy: number;
  idleSince: number;
}

/**
 * A keep-alive connection with no request under way is closed at shutdown
 * once it has been idle this long: a client that is just sending its next
 * request on it (a few ms at most) gets that request answered, with
 * `Connection: close`, rather than a reset.
 */
const IDLE_GRACE_MS = 250;
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 20_000;

/**
 * Listens; `close()` shuts down gracefully, for a load balancer in front:
 * readiness (`/readyz`) answers 503 at once; after `delayMs` (during which
 * requests are served as usual, while the balancer takes the instance out)
 * the listener closes, so new connections are refused; requests in flight
 * finish, their responses saying `Connection: close`; idle connections are
 * closed once idle for a moment; after `timeoutMs` whatever is left is cut.
 */
export function listen(app: Express | http.RequestListener, port: number, host = '127.0.0.1', shutdown: ShutdownOptions = {}): Promise<RunningServer> {
  const readiness = shutdown.readinessPath ?? '/readyz';
  const handle = app as http.RequestListener;
  const connections = new Map<Socket, Connection>();
  /** Readiness says 503. */
  let draining = false;
  /** The listener is closed: every response ends its connection. */
  let closing = false;
  const server = http.createServer((req, res) => {
    const conn = connections.get(req.socket);
    if (conn) {
      conn.busy++;
      res.once('close', () => {
        conn.busy--;
        conn.idleSince = Date.now();
      });
    }
    // set as the head is written, so that a request in flight when the listener closes says it too
    const writeHead = res.writeHead;
    res.writeHead = function (this: http.ServerResponse, ...args: unknown[]) {
      if (closing && !this.headersSent) this.setHeader('Connection', 'close');
      return (writeHead as (...a: unknown[]) => http.ServerResponse).apply(this, args);
    } as typeof res.writeHead;
    if (draining && (req.url ?? '').split('?')[0] === readiness) {
      sendJson(res, 503, { status: 'unavailable', detail: 'The service is shutting down.' });
      return;
    }
    handle(req, res);
  });
  server.keepAliveTimeout = 65_000;
  server.on('connection', (s: Socket) => {
    connections.set(s, { busy: 0, idleSince: Date.now() });
    s.on('close', () => connections.delete(s));
  });
  // Node's close() drops idle keep-alive connections at once, racing a client that is sending its next
  // request on one at that moment; they are closed below instead, once idle for IDLE_GRACE_MS
  server.closeIdleConnections = () => undefined;

  let closed: Promise<void> | null = null;
  const close = async (): Promise<void> => {
    draining = true;
    if (shutdown.delayMs) await sleep(shutdown.delayMs);
    closing = true;
    // ends once the last connection is gone (a destroyed socket's own 'close' event comes later: not waited for)
    let over = false;
    const ended = new Promise<void>((done) => server.close(() => ((over = true), done())));
    const deadline = Date.now() + (shutdown.timeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS);
    while (!over && Date.now() < deadline) {
      const now = Date.now();
      for (const [s, c] of connections) if (c.busy === 0 && now - c.idleSince >= IDLE_GRACE_MS) s.destroy();
      await Promise.race([ended, sleep(25)]);
    }
    if (!over) for (const s of connections.keys()) s.destroy(); // past the deadline
    await ended;
  };

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const addr = server.address() as AddressInfo;
      resolve({
        port: addr.port,
        url: `http://${host}:${addr.port}`,
        server,
        close: () => (closed ??= close()),
      });
    });
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs `stop` once on SIGTERM/SIGINT, then exits. */
export function onShutdown(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    stop()
      .then(() => process.exit(0))
      .catch((err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

/** The body of every service's main.ts: start, stop on SIGTERM, or report why it could not start. */
export function runMain(name: string, log: Logger, service: { start(): Promise<unknown>; stop(): Promise<void> }, afterStart?: () => Promise<void>): void {
  service
    .start()
    .then(async () => {
      if (afterStart) await afterStart();
      onShutdown(log, () => service.stop());
    })
    .catch((err: Error) => {
      process.stderr.write(`${name} failed to start: ${err.stack}\n`);
      process.exit(1);
    });
}
