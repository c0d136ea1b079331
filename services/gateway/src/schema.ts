import type { Logger } from '@inventory/core';
import type { ServiceClient } from '@inventory/refs';
import { NETBOX_VERSION } from './status';
import { withTimeout } from './timeout';

type Json = Record<string, unknown>;

interface ServiceOpenApi {
  paths?: Json;
  components?: { schemas?: Json };
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
  private cached: { doc: Json; until: number } | null = null;
  private building: Promise<Json> | null = null;

  constructor(
    private readonly refs: ServiceClient,
    private readonly services: string[],
    private readonly log: Logger,
  ) {}

  async document(): Promise<Json> {
    if (this.cached && this.cached.until > Date.now()) return this.cached.doc;
    // concurrent requests share one build
    this.building ??= this.build().finally(() => (this.building = null));
    return this.building;
  }

  clear(): void {
    this.cached = null;
  }

  private async build(): Promise<Json> {
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
    const complete = parts.every(Boolean);
    this.cached = { doc, until: Date.now() + (complete ? CACHE_MS : PARTIAL_CACHE_MS) };
    return doc;
  }
}

function sortKeys(o: Json): Json {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
