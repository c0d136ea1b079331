import type { Express, Request, Response } from 'express';
import { MethodNotAllowed } from '@inventory/core';

/**
 * A service's own route beyond the model routes (available-ips, trace,
 * render-config...), declared once: `mountRoute` serves it with DRF's method
 * rules and registers it, and the service's OpenAPI part documents what was
 * mounted (`routeOpenApi`), so the document cannot drift from the routes.
 */

type Schema = Record<string, unknown>;
export type RouteVerb = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type RouteHandler = (req: Request, res: Response) => unknown;

export interface RouteOperation {
  handler: RouteHandler;
  summary?: string;
  /** Query parameters (the path's own come from the path). */
  query?: Schema[];
  /** The JSON request body's schema; none when absent. */
  request?: Schema;
  /** Status of a success (200 by default). */
  status?: number;
  /** JSON schema of a success. */
  response: Schema;
  /** Other media types a success may take (`text/plain` with Accept, SVG with `?render=svg`). */
  alternatives?: Record<string, Schema>;
  /** NetBox's operation id, when the default (from the path and verb) differs. */
  operationId?: string;
}

export interface RouteDecl {
  /** Express path, e.g. `/api/ipam/prefixes/:id/available-ips/`. */
  path: string;
  /** The view's name for OPTIONS (default from the last path segment). */
  name?: string;
  /** What `:id` names, for its description (`prefix`). */
  idOf?: string;
  operations: Partial<Record<RouteVerb, RouteOperation>>;
  /** Component schemas the operations refer to. */
  schemas?: Record<string, Schema>;
}

const VERBS: RouteVerb[] = ['get', 'post', 'put', 'patch', 'delete'];
const RENDERS = ['application/json', 'text/html'];
const PARSES = ['application/json', 'multipart/form-data'];

/** The routes mounted on each app, in mounting order (read by the app's /internal/openapi). */
const mounted = new WeakMap<Express, RouteDecl[]>();

/** DRF's Allow: the view's methods in its http_method_names order, HEAD with GET, then OPTIONS. */
export function allowOf(route: RouteDecl): string {
  const verbs = VERBS.filter((v) => route.operations[v]).map((v) => v.toUpperCase());
  return [...verbs, ...(route.operations.get ? ['HEAD'] : []), 'OPTIONS'].join(', ');
}

function viewName(route: RouteDecl): string {
  if (route.name) return route.name;
  const last = route.path.split('/').filter(Boolean).pop() ?? '';
  return last.split(/[-_]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}

/**
 * Serves the route: each declared verb runs its handler (HEAD as GET),
 * OPTIONS describes the view, any other method is DRF's 405 with `Allow`,
 * before the object is looked up (as DRF dispatches).
 */
export function mountRoute(app: Express, route: RouteDecl): void {
  const allow = allowOf(route);
  const list = mounted.get(app) ?? [];
  list.push(route);
  mounted.set(app, list);
  app.all(route.path, async (req, res) => {
    res.setHeader('Allow', allow);
    const verb = (req.method === 'HEAD' ? 'get' : req.method.toLowerCase()) as RouteVerb;
    const op = route.operations[verb];
    if (op) return op.handler(req, res);
    if (req.method === 'OPTIONS') {
      res.json({ name: viewName(route), description: route.operations.get?.summary ?? route.operations.post?.summary ?? '', renders: RENDERS, parses: PARSES });
      return;
    }
    throw new MethodNotAllowed(req.method);
  });
}

/** The routes mounted on an app so far. */
export function mountedRoutes(app: Express): RouteDecl[] {
  return mounted.get(app) ?? [];
}
