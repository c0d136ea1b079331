import type { Express } from 'express';
import { execute, parse, printSchema, validate, GraphQLError, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { HttpError, ValidationError } from '@inventory/core';
import { GRAPHQL_IDENTITY_HEADER, verifyIdentity } from '@inventory/auth';
import type { ServiceContext } from '../model';
import { Batchers } from './batch';
import { buildSubgraph } from './schema';

/** The request body the gateway's executor sends. */
interface Body {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
  /** The API's base as the client sees it, for `url`s. */
  base?: unknown;
}

/**
 * `GET /internal/graphql`: the subgraph's SDL (the gateway composes them).
 * `POST /internal/graphql`: runs a query of the gateway's as the forwarded
 * user; errors are GraphQL errors (REST's error body under `extensions`).
 */
export function mountGraphql(app: Express, ctx: ServiceContext, secret: string): void {
  let schema: GraphQLSchema | null = null;
  const subgraph = () => (schema ??= buildSubgraph(ctx));
  app.get('/internal/graphql', (_req, res) => {
    res.json({ sdl: printSchema(subgraph()) });
  });
  app.post('/internal/graphql', async (req, res) => {
    const body = (req.body ?? {}) as Body;
    const identity = verifyIdentity(secret, req.headers[GRAPHQL_IDENTITY_HEADER] as string | undefined, ctx.name);
    if (typeof body.query !== 'string') throw new ValidationError({ query: ['Expected a GraphQL document.'] });
    const base = typeof body.base === 'string' && body.base ? body.base : (ctx.settings.publicUrl ?? 'http://localhost');
    res.json(await run(subgraph(), body, { scope: { ctx, identity, base }, batchers: new Batchers() }));
  });
}

async function run(schema: GraphQLSchema, body: Body, contextValue: object): Promise<ExecutionResult> {
  let document;
  try {
    document = parse(body.query as string);
  } catch (err) {
    return { errors: [err as GraphQLError] };
  }
  const errors = validate(schema, document);
  if (errors.length) return { errors };
  const result = await execute({
    schema,
    document,
    variableValues: (body.variables ?? undefined) as Record<string, unknown> | undefined,
    operationName: typeof body.operationName === 'string' ? body.operationName : undefined,
    contextValue,
  });
  return result.errors ? { ...result, errors: result.errors.map(withRestError) } : result;
}

/** A typed error of the engine as a GraphQL error: its REST body as the message's detail and under `extensions`. */
function withRestError(err: GraphQLError): GraphQLError {
  const original = err.originalError;
  if (!(original instanceof HttpError)) return err;
  const message = original instanceof ValidationError ? describe(original.errors) : original.message;
  return new GraphQLError(message, { nodes: err.nodes, path: err.path, extensions: { status: original.status, body: original.body } });
}

/** `{"status": ["Select a valid choice."]}` → `status: Select a valid choice.` */
function describe(errors: unknown): string {
  if (!errors || typeof errors !== 'object') return String(errors);
  return Object.entries(errors as Record<string, unknown>)
    .map(([field, msgs]) => `${field}: ${Array.isArray(msgs) ? msgs.join(' ') : JSON.stringify(msgs)}`)
    .join('; ');
}
