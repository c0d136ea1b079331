import { buildSchema, type GraphQLSchema } from 'graphql';
import { stitchSchemas } from '@graphql-tools/stitch';
import { filterSchema } from '@graphql-tools/utils';
import type { Logger } from '@inventory/core';
import type { SubgraphClient } from './subgraphs';

type Subschema = Extract<NonNullable<Parameters<typeof stitchSchemas>[0]['subschemas']>[number], { executor?: unknown }>;

/** `_Tenant_by_id`: the batched key a subgraph resolves a type by. */
const KEY_FIELD = /^_([A-Za-z0-9]+)_by_id$/;

/** How long a composition missing a service is kept before the gateway asks again. */
const RETRY_MS = 5000;

/**
 * The gateway's schema: the services' subgraphs stitched with type merging
 * (decision 033). A type several subgraphs name (a tenant: tenancy's own,
 * dcim's stub with `sites`) is one type; each subgraph resolves it from its
 * `id` with its `_<Type>_by_id(ids)` key field, batched (one call per
 * service per nesting level). The key fields are left out of the public
 * schema. A service that does not answer is left out until it does.
 */
export class Composition {
  private current: { schema: GraphQLSchema; missing: string[]; at: number } | null = null;
  private building: Promise<GraphQLSchema> | null = null;

  constructor(
    private readonly services: string[],
    private readonly client: SubgraphClient,
    private readonly log: Logger,
  ) {}

  /** The composed schema, built on first use and again while a service was missing from it. */
  async schema(): Promise<GraphQLSchema> {
    const c = this.current;
    if (c && (!c.missing.length || Date.now() - c.at < RETRY_MS)) return c.schema;
    this.building ??= this.build().finally(() => (this.building = null));
    return this.building;
  }

  /** Forget the composition (a service came back, or changed): the next request composes again. */
  clear(): void {
    this.current = null;
  }

  private async build(): Promise<GraphQLSchema> {
    const missing: string[] = [];
    const subschemas: Subschema[] = [];
    await Promise.all(
      this.services.map(async (service) => {
        try {
          subschemas.push(this.subschema(service, await this.client.sdl(service)));
        } catch (err) {
          missing.push(service);
          this.log.warn({ service, err: (err as Error).message }, 'GraphQL: subgraph unavailable, composed without it');
        }
      }),
    );
    // in the services' order, so the composition does not depend on which answered first
    subschemas.sort((a, b) => this.services.indexOf(String(a.name)) - this.services.indexOf(String(b.name)));
    const stitched = stitchSchemas({ subschemas, mergeTypes: true });
    const schema = filterSchema({ schema: stitched, rootFieldFilter: (_op, name) => !KEY_FIELD.test(name) });
    this.current = { schema, missing, at: Date.now() };
    return schema;
  }

  private subschema(service: string, sdl: string): Subschema {
    const schema = buildSchema(sdl);
    const merge: NonNullable<Subschema['merge']> = {};
    for (const fieldName of Object.keys(schema.getQueryType()?.getFields() ?? {})) {
      const type = KEY_FIELD.exec(fieldName)?.[1];
      if (!type) continue;
      merge[type] = { selectionSet: '{ id }', fieldName, key: (o: { id: number }) => o.id, argsFromKeys: (ids: readonly number[]) => ({ ids }) };
    }
    return { name: service, schema, executor: this.client.executor(service), batch: true, merge };
  }
}
