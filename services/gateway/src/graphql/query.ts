import type { Request, Response } from 'express';
import { GraphQLError, execute, getOperationAST, parse, printSchema, specifiedRules, validate, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { locals } from '../auth/identity';
import { forwardedFor } from '../forwarding/forwarded';
import type { Composition } from './compose';
import { checkLimits, type Limits } from './limits';
import type { GraphqlRequestContext } from './subgraphs';

/** A GraphQL request as GET's query string or POST's JSON body carries it. */
export interface GraphqlParams {
  query: string;
  variables: Record<string, unknown>;
  operationName: string | undefined;
}

/** What answering a query needs of the gateway. */
export interface QueryDeps {
  composition: Composition;
  limits: Limits;
  publicUrl: string | undefined;
}

/** The composed schema's SDL (`/graphql/?sdl`). */
export function sdl(schema: GraphQLSchema): string {
  return printSchema(schema);
}

/** Parses, validates (with the limits) and runs one request; 400 with GraphQL errors when it cannot run. */
export async function answer(deps: QueryDeps, req: Request, res: Response, p: GraphqlParams): Promise<{ status: number; body: ExecutionResult }> {
  const schema = await deps.composition.schema();
  let document: DocumentNode;
  try {
    document = parse(p.query);
  } catch (err) {
    return { status: 400, body: { errors: [err as GraphQLError] } };
  }
  const errors = [...validate(schema, document, specifiedRules)];
  if (!errors.length) {
    const op = getOperationAST(document, p.operationName);
    if (op && op.operation !== 'query') errors.push(new GraphQLError('The GraphQL API is read-only: only queries are served.', { nodes: [op] }));
    errors.push(...checkLimits(schema, document, p.operationName, p.variables, deps.limits));
  }
  if (errors.length) return { status: 400, body: { errors } };
  const f = forwardedFor(req, deps.publicUrl);
  const context: GraphqlRequestContext = {
    identity: locals(res).identity,
    base: deps.publicUrl ? deps.publicUrl.replace(/\/$/, '') : `${f.proto}://${f.host}`,
    requestId: locals(res).requestId,
    calls: {},
    statements: null,
  };
  const result = await execute({ schema, document, variableValues: p.variables, operationName: p.operationName, contextValue: context });
  // what the services reported (QUERY_COUNT_HEADER), summed: the cost of one query across the services
  if (context.statements !== null) res.setHeader('X-Query-Count', String(context.statements));
  res.setHeader('X-Service-Calls', String(Object.values(context.calls).reduce((a, b) => a + b, 0)));
  return { status: 200, body: result };
}
