import { Cache, type Loaded, type Logger } from '@inventory/core';
import type { ServiceClient } from '@inventory/refs';
import { NETBOX_VERSION } from './status';
import { withTimeout } from '../forwarding/timeout';
import { EVENTS_EXCHANGE } from '@inventory/events';

type Json = Record<string, unknown>;

interface ServiceOpenApi {
  paths?: Json;
  components?: { schemas?: Json };
}

interface ServiceAsyncApi {
  channels?: Json;
  components?: { schemas?: Json; messages?: Json };
}

/** Merged documents are rebuilt at most this often (custom fields change the filters). */
const CACHE_MS = 30_000;
/** A document missing a service is kept only briefly, so a restarted service reappears soon. */
const PARTIAL_CACHE_MS = 3_000;
const SERVICE_TIMEOUT_MS = 10_000;

/** Paths the gateway answers itself. */
const GATEWAY_PATHS: Json = {
  '/api/status/': {
    get: {
      operationId: 'status_retrieve',
      description: "A lightweight read-only endpoint for conveying NetBox's current operational status.",
      tags: ['status'],
      security: [{ tokenAuth: [] }, {}],
      responses: {
        '200': {
          description: '',
          content: { 'application/json': { schema: { type: 'object', additionalProperties: {} } } },
        },
      },
    },
  },
};

/**
 * The one OpenAPI 3.0.3 document for the whole API: each service describes its
 * own paths and schemas at `GET /internal/openapi`; the gateway merges them
 * under NetBox's info, servers and security scheme.
 */
export class SchemaBuilder {
  // concurrent requests share one build; each document is kept CACHE_MS, or PARTIAL_CACHE_MS when a service was left out
  private readonly docs = new Cache<'openapi' | 'asyncapi', Json>({ max: 2, ttlMs: CACHE_MS });

  constructor(
    private readonly refs: ServiceClient,
    private readonly services: string[],
    private readonly log: Logger,
  ) {}

  async document(): Promise<Json> {
    return (await this.docs.loadWithTtl('openapi', () => this.build()))!;
  }

  /**
   * The AsyncAPI 2.6 document of the change events (`/api/schema/events/`):
   * each service describes its models' routing keys, messages and schemas
   * at `GET /internal/asyncapi`; merged like the OpenAPI document.
   */
  async events(): Promise<Json> {
    return (await this.docs.loadWithTtl('asyncapi', () => this.buildEvents()))!;
  }

  /** Drops both documents; a build in flight is not kept (the generation rule). */
  clear(): void {
    this.docs.clear();
  }

  private async buildEvents(): Promise<Loaded<Json>> {
    const parts = await Promise.all(
      this.services.map((s) =>
        withTimeout(this.refs.call<ServiceAsyncApi>(s, 'GET', '/internal/asyncapi'), SERVICE_TIMEOUT_MS, () => new Error('timed out')).catch((err: Error) => {
          this.log.warn({ service: s, err: { message: err.message } }, 'asyncapi: service left out');
          return null;
        }),
      ),
    );
    const channels: Json = {};
    const schemas: Json = {};
    const messages: Json = {};
    for (const part of parts) {
      if (!part) continue;
      Object.assign(channels, part.channels ?? {});
      Object.assign(messages, part.components?.messages ?? {});
      // shared schemas (BriefTag) come from every service alike: first wins, as in the OpenAPI document
      for (const [name, schema] of Object.entries(part.components?.schemas ?? {})) if (!(name in schemas)) schemas[name] = schema;
    }
    const doc: Json = {
      asyncapi: '2.6.0',
      id: 'urn:netbox:inventory:events',
      info: {
        title: 'NetBox change events',
        version: NETBOX_VERSION,
        description:
          `Every write through the REST API publishes one change event per object to the durable \`${EVENTS_EXCHANGE}\` topic exchange, ` +
          'with the routing key `<app>.<model>.<event>` (`created`, `updated`, `deleted`): bind a queue with a pattern such as ' +
          '`tenancy.#` or `*.*.deleted`. Delivery is at least once, in write order per service: de-duplicate by the message id (the event id). ' +
          '`data` is the object as the REST API represents it (see /api/schema/).',
        license: { name: 'Apache v2 License' },
      },
      servers: {
        rabbitmq: {
          url: '{host}',
          protocol: 'amqp',
          protocolVersion: '0.9.1',
          description: `The RabbitMQ broker of the deployment (AMQP_URL); the events are on the \`${EVENTS_EXCHANGE}\` exchange (topic, durable).`,
          variables: { host: { default: 'localhost:5672', description: 'host:port of the broker' } },
        },
      },
      defaultContentType: 'application/json',
      channels: sortKeys(channels),
      components: { schemas: sortKeys(schemas), messages: sortKeys(messages) },
    };
    return { value: doc, ttlMs: parts.every(Boolean) ? CACHE_MS : PARTIAL_CACHE_MS };
  }

  private async build(): Promise<Loaded<Json>> {
    const parts = await Promise.all(
      this.services.map((s) =>
        withTimeout(this.refs.call<ServiceOpenApi>(s, 'GET', '/internal/openapi'), SERVICE_TIMEOUT_MS, () => new Error('timed out')).catch((err: Error) => {
          this.log.warn({ service: s, err: { message: err.message } }, 'openapi: service left out');
          return null;
        }),
      ),
    );
    const paths: Json = { ...GATEWAY_PATHS };
    const schemas: Json = {};
    for (const part of parts) {
      if (!part) continue;
      Object.assign(paths, part.paths ?? {});
      // shared component schemas (pagination, nested objects) are declared by every service alike: first wins
      for (const [name, schema] of Object.entries(part.components?.schemas ?? {})) if (!(name in schemas)) schemas[name] = schema;
    }
    const doc: Json = {
      openapi: '3.0.3',
      info: { title: 'NetBox REST API', version: NETBOX_VERSION, license: { name: 'Apache v2 License' } },
      paths: sortKeys(paths),
      components: {
        schemas: sortKeys(schemas),
        securitySchemes: {
          tokenAuth: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Token-based authentication with required prefix "Token"' },
        },
      },
      security: [{ tokenAuth: [] }],
      servers: [{ url: '', description: 'NetBox' }],
    };
    return { value: doc, ttlMs: parts.every(Boolean) ? CACHE_MS : PARTIAL_CACHE_MS };
  }
}

function sortKeys(o: Json): Json {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
