import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { runWithContext } from './context';
import { HttpError, UnsupportedMediaType, BadRequest, Conflict, PayloadTooLarge, TooManyRequests } from './errors';
import { checkJsonBody } from './input';
import type { Logger } from './logging';

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
    // stream events run outside the request's async context: re-enter it before going on
    const next = AsyncResource.bind(proceed) as NextFunction;
    const length = req.headers['content-length'];
    const chunked = req.headers['transfer-encoding'] !== undefined;
    if (!chunked && (length === undefined || length === '0')) {
      req.body = undefined;
      return next();
    }
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
  /** Attach routes; called after the common middleware. */
  routes: (app: Express) => void;
}

export interface RunningServer {
  port: number;
  url: string;
  server: http.Server;
  close(): Promise<void>;
}

/** Express app with request ids, JSON bodies, health endpoints and the error handler. */
export function createApp(opts: ServiceOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'extended');
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
  app.use(jsonBody(opts.maxBodySize, opts.streamedBody));
  opts.routes(app);
  app.use(errorHandler(opts.log));
  return app;
}

/** Listens, and closes gracefully: stop accepting, let in-flight requests finish, then drop idle sockets. */
export function listen(app: Express | http.RequestListener, port: number, host = '127.0.0.1'): Promise<RunningServer> {
  const server = http.createServer(app as http.RequestListener);
  server.keepAliveTimeout = 65_000;
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const addr = server.address() as AddressInfo;
      resolve({
        port: addr.port,
        url: `http://${host}:${addr.port}`,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
            const timer = setTimeout(() => {
              for (const s of sockets) s.destroy();
            }, 5000);
            timer.unref();
          }),
      });
    });
  });
}

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
