import type { GraphQLSchema } from 'graphql';
import type { stitchSchemas } from '@graphql-tools/stitch';
import type { Logger } from '@inventory/core';
import type { SubgraphClient } from './subgraphs';

type Subschema = Extract<NonNullable<Parameters<typeof stitchSchemas>[0]['subschemas']>[number], { executor?: unknown }>;

/** `_Tenant_by_id`: the batched key a subgraph resolves a type by. */
const KEY_FIELD = /^_([A-Za-z0-9]+)_by_id$/;

/**
 * The gateway's schema: the services' subgraphs stitched with type merging
 * (decision 033). A type several subgraphs name (a tenant: tenancy's own,
 * dcim's stub with `sites`) is one type; each subgraph resolves it from its
 * `id` with its `_<Type>_by_id(ids)` key field, batched (one call per
 * service per nesting level). The key fields are left out of the public
 * schema. A service that does not answer is left out until it does: every
 * `retryMs` a request asks the missing ones again (only them), and the
 * schema is composed again once one answers, without a restart.
 */
export class Composition {
  private current: { schema: GraphQLSchema; sdls: Map<string, string>; missing: string[]; at: number } | null = null;
  private building: Promise<GraphQLSchema> | null = null;

  constructor(
    private readonly services: string[],
    private readonly client: SubgraphClient,
    private readonly log: Logger,
    private readonly retryMs = 5000,
  ) {}

  /** The composed schema, built on first use and again once a service missing from it answers. */
  async schema(): Promise<GraphQLSchema> {
    const c = this.current;
    if (c && (!c.missing.length || Date.now() - c.at < this.retryMs)) return c.schema;
    this.building ??= this.build(c).finally(() => (this.building = null));
    return this.building;
  }

  /** Forget the composition (a service came back, or changed): the next request composes again. */
  clear(): void {
    this.current = null;
  }

  /** Asks the services missing from `before` (all of them at first); composes again when the answers changed. */
  private async build(before: Composition['current']): Promise<GraphQLSchema> {
    const sdls = new Map(before?.sdls);
    const missing: string[] = [];
    await Promise.all(
      (before ? before.missing : this.services).map(async (service) => {
        try {
          sdls.set(service, await this.client.sdl(service));
        } catch (err) {
          missing.push(service);
          if (!before) this.log.warn({ service, err: (err as Error).message }, 'GraphQL: subgraph unavailable, composed without it');
        }
      }),
    );
    if (before && sdls.size === before.sdls.size) {
      // still none back: keep the schema, ask again after retryMs
      this.current = { ...before, at: Date.now() };
      return before.schema;
    }
    if (before) this.log.info({ services: [...sdls.keys()].filter((s) => !before.sdls.has(s)) }, 'GraphQL: subgraph back, composed again');
    // in the services' order, so the composition does not depend on which answered first
    // loaded with the first composition (graphql and graphql-tools are some 250 modules a gateway nobody queries never needs)
    const [{ buildSchema }, stitch, { filterSchema }] = await Promise.all([import('graphql'), import('@graphql-tools/stitch'), import('@graphql-tools/utils')]);
    const subschemas = this.services.filter((s) => sdls.has(s)).map((s) => this.subschema(s, buildSchema(sdls.get(s)!)));
    const stitched = stitch.stitchSchemas({ subschemas, mergeTypes: true });
    const schema = filterSchema({ schema: stitched, rootFieldFilter: (_op, name) => !KEY_FIELD.test(name) });
    this.current = { schema, sdls, missing, at: Date.now() };
    return schema;
  }

  private subschema(service: string, schema: GraphQLSchema): Subschema {
    const merge: NonNullable<Subschema['merge']> = {};
    for (const fieldName of Object.keys(schema.getQueryType()?.getFields() ?? {})) {
      const type = KEY_FIELD.exec(fieldName)?.[1];
      if (!type) continue;
      merge[type] = { selectionSet: '{ id }', fieldName, key: (o: { id: number }) => o.id, argsFromKeys: (ids: readonly number[]) => ({ ids }) };
    }
    return { name: service, schema, executor: this.client.executor(service), batch: true, merge };
  }
}
