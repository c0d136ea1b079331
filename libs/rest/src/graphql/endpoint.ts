import type { Express } from 'express';
import { ValidationError } from '@inventory/core';
import { GRAPHQL_IDENTITY_HEADER, verifyIdentity } from '@inventory/auth';
import type { ServiceContext } from '../model';
import { Batchers } from './batch';
import type { Body, Subgraph } from './execute';

/**
 * `GET /internal/graphql`: the subgraph's SDL (the gateway composes them).
 * `POST /internal/graphql`: runs a query of the gateway's as the forwarded
 * user; errors are GraphQL errors (REST's error body under `extensions`).
 * The `graphql` package (about 130 modules) loads with the first request, so
 * a service nobody queries that way never loads it.
 */
export function mountGraphql(app: Express, ctx: ServiceContext, secret: string): void {
  let loaded: Promise<Subgraph> | null = null;
  const subgraph = () => (loaded ??= import('./execute').then(({ Subgraph }) => new Subgraph(ctx)));
  app.get('/internal/graphql', async (_req, res) => {
    res.json({ sdl: (await subgraph()).sdl() });
  });
  app.post('/internal/graphql', async (req, res) => {
    const body = (req.body ?? {}) as Body;
    const identity = verifyIdentity(secret, req.headers[GRAPHQL_IDENTITY_HEADER] as string | undefined, ctx.name);
    if (typeof body.query !== 'string') throw new ValidationError({ query: ['Expected a GraphQL document.'] });
    const base = typeof body.base === 'string' && body.base ? body.base : (ctx.settings.publicUrl ?? 'http://localhost');
    res.json(await (await subgraph()).run(body, { scope: { ctx, identity, base }, batchers: new Batchers() }));
  });
}
