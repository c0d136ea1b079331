import type { ExecutionResult, GraphQLError } from 'graphql';
import type { ExecutionRequest, Executor } from '@graphql-tools/utils';
import { GRAPHQL_IDENTITY_HEADER, IDENTITY_HEADER, serviceIdentity, signIdentity, type Identity } from '@inventory/auth';
import type { IdentityMinter } from '../auth/identity';

/** Deadline of one subgraph call (a page of 1,000 objects with their nested levels). */
const CALL_TIMEOUT_MS = 60_000;

/** What one `/graphql/` request carries to the services it calls, and what they report back. */
export interface GraphqlRequestContext {
  identity: Identity;
  /** The API's base as the client sees it, for the `url`s in the answer. */
  base: string;
  requestId: string;
  /** Calls made to each service, and the SQL statements they reported (X-Query-Count), for the response headers. */
  calls: Record<string, number>;
  statements: number | null;
}

/**
 * Calls to the services' `/internal/graphql`: the gateway's own service
 * identity (only a service may reach `/internal/`), and the client's
 * identity, signed for that service, in X-GraphQL-Identity: the service reads
 * with the client's permissions, as for a forwarded REST request.
 */
export class SubgraphClient {
  private readonly tokens = new Map<string, { token: string; renewAt: number }>();

  constructor(
    private readonly urls: Record<string, string>,
    private readonly secret: string,
    private readonly minter: IdentityMinter,
  ) {}

  /** The service's subgraph SDL; throws when it does not answer (the composition then leaves it out for now). */
  async sdl(service: string): Promise<string> {
    const res = await fetch(`${this.urls[service]}/internal/graphql`, { headers: { [IDENTITY_HEADER]: this.own(service) }, signal: AbortSignal.timeout(5000) });
    if (!res.ok) throw new Error(`${service}: HTTP ${res.status}`);
    return ((await res.json()) as { sdl: string }).sdl;
  }

  /** The executor the stitched schema delegates to for one service. */
  executor(service: string): Executor {
    return (async (request: ExecutionRequest): Promise<ExecutionResult> => {
      // graphql is loaded by now (it runs this executor): imported here so that a gateway nobody queries never loads it
      const { GraphQLError, print } = await import('graphql');
      const unavailable = (status?: number): GraphQLError =>
        new GraphQLError(`Service ${service} is unavailable${status ? ` (HTTP ${status})` : ''}.`, { extensions: { service } });
      const c = request.context as GraphqlRequestContext;
      c.calls[service] = (c.calls[service] ?? 0) + 1;
      let res: Response;
      try {
        res = await fetch(`${this.urls[service]}/internal/graphql`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            [IDENTITY_HEADER]: this.own(service),
            [GRAPHQL_IDENTITY_HEADER]: this.minter.mint(c.identity, service),
            'x-request-id': c.requestId,
          },
          body: JSON.stringify({ query: print(request.document), variables: request.variables, operationName: request.operationName, base: c.base }),
          signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
        });
      } catch {
        return { errors: [unavailable()] };
      }
      const counted = res.headers.get('x-query-count');
      if (counted !== null) c.statements = (c.statements ?? 0) + Number(counted);
      if (!res.ok) return { errors: [unavailable(res.status)] };
      return (await res.json()) as ExecutionResult;
    }) as Executor;
  }

  /** The gateway's own identity for `service`, renewed once a minute. */
  private own(service: string): string {
    const now = Date.now();
    let t = this.tokens.get(service);
    if (!t || now > t.renewAt) {
      t = { token: signIdentity(this.secret, serviceIdentity('gateway'), 120, service), renewAt: now + 60_000 };
      this.tokens.set(service, t);
    }
    return t.token;
  }
}
