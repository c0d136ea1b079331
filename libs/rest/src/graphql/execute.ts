import { execute, parse, printSchema, validate, GraphQLError, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { HttpError, ValidationError } from '@inventory/core';
import type { ServiceContext } from '../model';
import { buildSubgraph } from './schema';

/** The request body the gateway's executor sends. */
export interface Body {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
  /** The API's base as the client sees it, for `url`s. */
  base?: unknown;
}

/** A service's subgraph: its schema built on first use, its SDL, and queries run against it. */
export class Subgraph {
  private schema: GraphQLSchema | null = null;

  constructor(private readonly ctx: ServiceContext) {}

  private get built(): GraphQLSchema {
    return (this.schema ??= buildSubgraph(this.ctx));
  }

  sdl(): string {
    return printSchema(this.built);
  }

  async run(body: Body, contextValue: object): Promise<ExecutionResult> {
    let document;
    try {
      document = parse(body.query as string);
    } catch (err) {
      return { errors: [err as GraphQLError] };
    }
    const schema = this.built;
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
