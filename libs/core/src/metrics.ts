import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { NextFunction, Request, Response } from 'express';
import { NotAuthenticated, PermissionDenied } from './errors';

export type { Counter, Gauge, Histogram } from 'prom-client';

/**
 * Prometheus metrics of one service instance (see docs/decisions/024). Each
 * instance has a registry of its own, labelled with its name, because tests
 * and `npm start` run several services in one process: nothing goes to
 * prom-client's global registry. The process's own figures (CPU, memory,
 * event loop lag, GC) are collected once per process, in a registry every
 * instance's `/metrics` appends.
 */
export class Metrics {
  readonly registry = new Registry();

  constructor(readonly service: string) {
    this.registry.setDefaultLabels({ service });
  }

  /** The counter of that name in this registry, made on first use (so several parts may share one). */
  counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return (this.registry.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter<L>({ name, help, labelNames, registers: [this.registry] });
  }

  histogram<L extends string = never>(name: string, help: string, labelNames: readonly L[] = [], buckets = LATENCY_BUCKETS): Histogram<L> {
    return (this.registry.getSingleMetric(name) as Histogram<L> | undefined) ?? new Histogram<L>({ name, help, labelNames, buckets, registers: [this.registry] });
  }

  /**
   * A gauge. With `collect`, its value is read when scraped (nothing is
   * measured between scrapes); a failing `collect` leaves the gauge out of
   * that scrape rather than failing the whole page. One collector per name.
   */
  gauge<L extends string = never>(name: string, help: string, labelNames: readonly L[] = [], collect?: (g: Gauge<L>) => Promise<void> | void): Gauge<L> {
    const existing = this.registry.getSingleMetric(name) as Gauge<L> | undefined;
    if (existing) return existing;
    return new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      ...(collect
        ? {
            async collect(this: Gauge<L>) {
              this.reset();
              try {
                await collect(this);
              } catch {
                // no figure rather than a stale or half-made one (a gauge without labels says NaN: unknown, not 0)
                this.reset();
                if (!labelNames.length) (this as unknown as Gauge<string>).set(NaN);
              }
            },
          }
        : {}),
    });
  }

  /** The text exposition: this process's figures, then this instance's. */
  async exposition(): Promise<string> {
    const [own, proc] = await Promise.all([this.registry.metrics(), processRegistry().metrics()]);
    return `${proc}\n${own}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** Request latencies, 5 ms to 10 s (prom-client's defaults, which fit an API). */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

let processMetrics: Registry | null = null;

/** Node's process metrics, collected once per process however many services it runs. */
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Label for requests no route pattern answered (404s, static files, answers of a middleware). */
export const OTHER_ROUTE = 'other';

/**
 * The route pattern express matched (`/api/dcim/devices/:id/`), never the
 * URL: label values stay as few as the routes. A route declared with several
 * paths reports the one that is the request's path (they are constant paths).
 */
export function routePattern(req: IncomingMessage): string | null {
  const route = (req as Request).route as { path?: unknown } | undefined;
  const path = route?.path;
  if (typeof path === 'string') return `${(req as Request).baseUrl ?? ''}${path}`;
  if (Array.isArray(path)) {
    const own = (req as Request).path;
    return path.find((p) => p === own) ?? path.map(String).join('|');
  }
  return null;
}

export interface HttpMetrics {
  /** Counts and times the request until its response is done (or the connection is gone: `aborted`). */
  observe(req: IncomingMessage, res: ServerResponse, route: (req: IncomingMessage) => string | null): void;
}

/** `inventory_http_*`: requests by method, route pattern and status class, their latency, and those in flight. */
export function httpMetrics(metrics: Metrics): HttpMetrics {
  const labels = ['method', 'route', 'status_class'] as const;
  const requests = metrics.counter('inventory_http_requests_total', 'HTTP requests answered, by method, route pattern and status class.', labels);
  const latency = metrics.histogram('inventory_http_request_duration_seconds', 'Time from a request to its response being sent, by method, route pattern and status class.', labels);
  const inFlight = metrics.gauge('inventory_http_requests_in_flight', 'HTTP requests being answered.');
  return {
    observe(req, res, route) {
      const started = process.hrtime.bigint();
      inFlight.inc();
      res.once('close', () => {
        inFlight.dec();
        const values = {
          method: METHODS.has(req.method ?? '') ? (req.method as string) : 'OTHER',
          route: route(req) ?? OTHER_ROUTE,
          // a response cut before its end (the client went away) is told apart from the status it meant to send
          status_class: res.writableFinished ? `${Math.floor(res.statusCode / 100)}xx` : 'aborted',
        };
        requests.inc(values);
        latency.observe(values, Number(process.hrtime.bigint() - started) / 1e9);
      });
    },
  };
}

/** Express middleware: every request counted under its route pattern. */
export function httpMetricsMiddleware(metrics: HttpMetrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    metrics.observe(req, res, routePattern);
    next();
  };
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * `GET /metrics`. Open unless `token` is set (METRICS_TOKEN), then it wants
 * `Authorization: Bearer <token>` (compared in constant time), which is what
 * Prometheus' `authorization` scrape setting sends.
 */
export function metricsHandler(metrics: Metrics, token?: string) {
  const expected = token ? digest(token) : null;
  return async (req: Request, res: Response): Promise<void> => {
    if (expected) {
      const header = req.headers.authorization ?? '';
      if (!header) throw new NotAuthenticated();
      const given = /^Bearer\s+(.+)$/i.exec(header)?.[1] ?? '';
      if (!timingSafeEqual(digest(given), expected)) throw new PermissionDenied('Invalid metrics token.');
    }
    const text = await metrics.exposition();
    res.setHeader('Content-Type', metrics.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.end(text);
  };
}
