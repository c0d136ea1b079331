import { EVENTS_EXCHANGE, PACK_HEADER, type EventKind } from '@inventory/events';
import type { ModelDef } from '../model';
import { COMMON_SCHEMAS, schemaName } from './openapi';

/**
 * One service's part of the AsyncAPI 2.6 document of the change events
 * (`GET /internal/asyncapi`, merged by the gateway into /api/schema/events/):
 * per declared model, one channel per routing key `<app>.<model>.<event>`
 * on the `inventory.events` topic exchange, and one message whose payload
 * is the `ChangeEvent` envelope with `data` the model's REST representation
 * (or an array of them: a pack of consecutive events of one routing key),
 * the same component schema as in the OpenAPI document (converted from
 * OpenAPI 3.0's `nullable` to the JSON Schema AsyncAPI uses).
 */

type Schema = Record<string, unknown>;

export const EVENT_KINDS: readonly EventKind[] = ['created', 'updated', 'deleted'];
/** The AMQP bindings version of AsyncAPI 2.6 (0.3.0 came with AsyncAPI 3). */
export const AMQP_BINDING_VERSION = '0.2.0';

const schemaRef = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

export function messageName(model: ModelDef): string {
  return `${schemaName(model)}Event`;
}

/**
 * Models whose changes are published: declared read-only models (the
 * object-change log) are never written through the API, so no event ever
 * carries them.
 */
export function publishedModels(models: Iterable<ModelDef>): ModelDef[] {
  return [...models].filter((m) => !m.readOnly);
}

/** A snapshot (NetBox's serialize_object): stored values, relations as ids; null before a create and after a delete. */
const SNAPSHOT: Schema = {
  type: ['object', 'null'],
  description: "The object's stored values (relations as ids, tags as names, custom fields), as NetBox's serialize_object.",
  properties: { id: { type: 'integer' } },
  required: ['id'],
  additionalProperties: true,
};

/** The `ChangeEvent` envelope (libs/events/src/envelope.ts) of one model's events. */
export function envelopeSchema(model: ModelDef): Schema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'event', 'model', 'object_id', 'version', 'timestamp', 'username', 'request_id', 'data', 'snapshots'],
    properties: {
      id: { type: 'string', format: 'uuid', description: 'The event id; also the AMQP message id (consumers de-duplicate by it).' },
      event: { type: 'string', enum: [...EVENT_KINDS], description: "NetBox's webhook event; the last part of the routing key." },
      model: { type: 'string', const: model.label, description: 'The content type label `<app>.<model>`.' },
      object_id: { type: 'integer' },
      version: { type: 'integer', minimum: 1, description: "The object's version after the change (before it, for a delete): its ETag." },
      timestamp: { type: 'string', format: 'date-time' },
      username: { type: 'string', description: 'Who made the change (empty when not a user).' },
      request_id: { type: 'string', description: 'The X-Request-ID of the API request that made the change.' },
      data: { ...schemaRef(schemaName(model)), description: "The object's complete REST representation (before the change, for a delete)." },
      snapshots: {
        type: 'object',
        additionalProperties: false,
        required: ['prechange', 'postchange'],
        properties: { prechange: SNAPSHOT, postchange: SNAPSHOT },
      },
    },
  };
}

/**
 * An OpenAPI 3.0 schema as JSON Schema (draft 07, AsyncAPI's default schema
 * format): `nullable: true` becomes a `null` type (or a `oneOf` with null for
 * references and compositions); everything else is kept.
 */
export function jsonSchemaOf(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(jsonSchemaOf);
  if (!s || typeof s !== 'object') return s;
  const { nullable, ...rest } = s as Schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(rest)) {
    if (key === 'properties' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value as Schema).map(([p, v]) => [p, jsonSchemaOf(v)]));
    } else if (['items', 'additionalProperties', 'not', 'allOf', 'oneOf', 'anyOf'].includes(key)) {
      out[key] = jsonSchemaOf(value);
    } else out[key] = value;
  }
  if (nullable !== true) return out;
  if (typeof out.type === 'string') {
    const enumOf = Array.isArray(out.enum) ? { enum: [...(out.enum as unknown[]), null] } : {};
    return { ...out, type: [out.type, 'null'], ...enumOf };
  }
  if (out.$ref || out.allOf || out.oneOf || out.anyOf) return { oneOf: [out, { type: 'null' }] };
  return out; // no type: anything, null included
}

/** Names of the schemas `root` refers to, directly or not, among `all`. */
function reachable(roots: string[], all: Schema): string[] {
  const seen = new Set<string>();
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      const m = k === '$ref' && typeof x === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(x) : null;
      if (m && !seen.has(m[1]) && m[1] in all) {
        seen.add(m[1]);
        visit(all[m[1]]);
      } else visit(x);
    }
  };
  for (const r of roots) visit(schemaRef(r));
  return [...seen];
}

export interface ServiceAsyncApi {
  channels: Schema;
  components: { schemas: Schema; messages: Schema };
}

/**
 * Channels, messages and schemas of one service's models. `openApiSchemas`
 * are the component schemas of its OpenAPI document (modelOpenApi's), so the
 * events describe `data` exactly as the REST API describes the object.
 */
export function serviceAsyncApi(models: Iterable<ModelDef>, openApiSchemas: Schema): ServiceAsyncApi {
  const all: Schema = { ...COMMON_SCHEMAS, ...openApiSchemas };
  const channels: Schema = {};
  const messages: Schema = {};
  const roots: string[] = [];
  for (const m of publishedModels(models)) {
    const message = messageName(m);
    roots.push(schemaName(m));
    // no messageId: the three channels of a model reference one message, and a messageId must be unique per
    // channel reference in AsyncAPI 2 (asyncapi/spec#946: the official parser refuses the document); it is optional
    messages[message] = {
      name: m.label,
      title: `${m.verboseName} changed`,
      summary: `A ${m.verboseName} was created, updated or deleted.`,
      description:
        'Published with the AMQP properties message_id = the event id (a message published twice carries the same id: de-duplicate by it), ' +
        'type = the routing key, content_type application/json, delivery mode 2 (persistent) and timestamp = the event time (seconds).',
      contentType: 'application/json',
      payload: envelopeSchema(m),
      bindings: { amqp: { bindingVersion: AMQP_BINDING_VERSION } },
      // the AMQP 0-9-1 basic properties the relay sets (libs/events/src/relay.ts); the bindings have no field for the message id
      'x-amqp-properties': {
        message_id: '$message.payload#/id',
        type: '<app>.<model>.<event>: the routing key',
        content_type: 'application/json',
        delivery_mode: 2,
        timestamp: '$message.payload#/timestamp, in seconds',
      },
    };
    // consecutive events of one routing key go as one message, an array of envelopes (libs/events/src/relay.ts `packs`)
    messages[`${message}Pack`] = {
      name: `${m.label} (pack)`,
      title: `${m.verboseName} changes, packed`,
      summary: `Consecutive ${m.verboseName} events of one routing key (a bulk write's), in their order, as one message.`,
      description:
        `Published with the AMQP properties message_id = <first event id>..<last event id>, header ${PACK_HEADER} = the number of events, ` +
        'and the rest as a single event. A consumer applies each event of the array in order and de-duplicates each by its own id.',
      contentType: 'application/json',
      payload: { type: 'array', minItems: 2, items: envelopeSchema(m) },
      bindings: { amqp: { bindingVersion: AMQP_BINDING_VERSION } },
      'x-amqp-properties': {
        message_id: '$message.payload#/0/id..<id of the last event>',
        type: '<app>.<model>.<event>: the routing key',
        content_type: 'application/json',
        delivery_mode: 2,
        timestamp: '$message.payload#/0/timestamp, in seconds',
        headers: { [PACK_HEADER]: 'the number of events' },
      },
    };
    for (const kind of EVENT_KINDS) {
      const key = `${m.label}.${kind}`;
      channels[key] = {
        description: `Routing key \`${key}\` on the \`${EVENTS_EXCHANGE}\` exchange: every ${m.verboseName} ${kind}.`,
        subscribe: {
          operationId: key.replace(/\./g, '_'),
          summary: `A ${m.verboseName} was ${kind}.`,
          message: { oneOf: [{ $ref: `#/components/messages/${message}` }, { $ref: `#/components/messages/${message}Pack` }] },
          bindings: { amqp: { deliveryMode: 2, timestamp: true, ack: true, bindingVersion: AMQP_BINDING_VERSION } },
        },
        bindings: {
          amqp: {
            is: 'routingKey',
            exchange: { name: EVENTS_EXCHANGE, type: 'topic', durable: true, autoDelete: false, vhost: '/' },
            bindingVersion: AMQP_BINDING_VERSION,
          },
        },
      };
    }
  }
  const schemas = Object.fromEntries(reachable(roots, all).map((name) => [name, jsonSchemaOf(all[name])]));
  return { channels, components: { schemas, messages } };
}
