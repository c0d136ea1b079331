import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { BadRequest, MethodNotAllowed } from '@inventory/core';
import { locals } from '../auth/identity';
import { wantsHtml } from '../pages/html';
import { LOGIN_PATH, pathPrefix } from '../pages/page-html';
import { sendGraphiql } from './graphiql';
import type { GraphqlParams, QueryDeps } from './query';

export const GRAPHQL_PATH = '/graphql/';

export interface GraphqlDeps extends QueryDeps {
  /** The API's authentication (a token or the session), run for every request here. */
  authenticate: RequestHandler;
  maxBodySize: number;
}

/**
 * `/graphql/`: NetBox's read-only GraphQL API, composed from the services'
 * subgraphs. POST (JSON) or GET (`?query=`) with a token or a session, as
 * the REST API; a browser's GET without a query gets GraphiQL (signed in;
 * otherwise the login page); `?sdl` the schema's SDL.
 */
export function mountGraphql(app: Express, deps: GraphqlDeps): void {
  const prefix = pathPrefix(deps.publicUrl);
  const json = express.json({ limit: deps.maxBodySize });
  // `/graphql` → `/graphql/` (routing is not strict: the route below would match both)
  app.use((req, res, next) => {
    if (req.path !== '/graphql') return next();
    const q = req.originalUrl.indexOf('?');
    res.redirect(302, `${prefix}${GRAPHQL_PATH}${q >= 0 ? req.originalUrl.slice(q) : ''}`);
  });
  app.all(GRAPHQL_PATH, async (req, res) => {
    const reading = req.method === 'GET' || req.method === 'HEAD';
    if (!reading && req.method !== 'POST') {
      res.setHeader('Allow', 'GET, HEAD, POST');
      throw new MethodNotAllowed(req.method);
    }
    const page = reading && req.query.query === undefined && req.query.sdl === undefined && wantsHtml(req);
    try {
      await run(deps.authenticate, req, res);
    } catch (err) {
      if (page) return res.redirect(302, `${prefix}${LOGIN_PATH}?next=${encodeURIComponent(prefix + req.originalUrl)}`);
      throw err;
    }
    if (page) {
      if (!locals(res).identity.user) return res.redirect(302, `${prefix}${LOGIN_PATH}?next=${encodeURIComponent(prefix + req.originalUrl)}`);
      return sendGraphiql(res);
    }
    // graphql itself loads with the first query (a gateway nobody queries this way never loads it)
    const query = await import('./query');
    const schema = await deps.composition.schema();
    if (reading && req.query.sdl !== undefined) return res.type('text/plain').send(query.sdl(schema));
    if (!reading) await run(json, req, res);
    const params = reading ? fromQuery(req) : fromBody(req.body);
    const { status, body } = await query.answer(deps, req, res, params);
    res.status(status).json(body);
  });
}

function fromQuery(req: Request): GraphqlParams {
  const { query, variables, operationName } = req.query;
  if (typeof query !== 'string') throw new BadRequest('Expected a GraphQL query in `query`.');
  return { query, variables: parseVariables(variables), operationName: typeof operationName === 'string' && operationName ? operationName : undefined };
}

function fromBody(body: unknown): GraphqlParams {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new BadRequest('Expected a JSON object with a GraphQL `query`.');
  const { query, variables, operationName } = body as Record<string, unknown>;
  if (typeof query !== 'string') throw new BadRequest('Expected a GraphQL query in `query`.');
  return { query, variables: parseVariables(variables), operationName: typeof operationName === 'string' && operationName ? operationName : undefined };
}

/** `variables`: an object, or (GET) its JSON text. */
function parseVariables(v: unknown): Record<string, unknown> {
  if (v === undefined || v === null || v === '') return {};
  let value = v;
  if (typeof v === 'string') {
    try {
      value = JSON.parse(v);
    } catch {
      throw new BadRequest('`variables` is not valid JSON.');
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new BadRequest('`variables` must be a JSON object.');
  return value as Record<string, unknown>;
}

/** Runs a middleware to its `next` (or its thrown error). */
function run(mw: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    Promise.resolve(mw(req, res, (err?: unknown) => (err ? reject(err) : resolve()))).catch(reject);
  });
}
