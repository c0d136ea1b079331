import { defineModel, f, modelOpenApi } from '@inventory/rest';
import { envelopeSchema, jsonSchemaOf, messageName, serviceAsyncApi } from '../src/http/asyncapi';
import { group } from './fixtures';

const widget = defineModel({
  label: 'demo.widget',
  endpoint: 'widgets',
  verboseName: 'widget',
  fields: { name: f.name(50), group: f.fk('demo.group', 'SET_NULL', { nullable: true }), owner: f.fk('auth.user', 'SET_NULL', { nullable: true }), description: f.description() },
  brief: ['name'],
  display: (r) => String(r.name),
  ordering: ['name'],
});

const log = defineModel({
  label: 'demo.log',
  endpoint: 'logs',
  verboseName: 'log entry',
  fields: { text: f.string(100) },
  readOnly: true,
  brief: ['text'],
  display: (r) => String(r.text),
  ordering: ['text'],
});

const models = [group, widget, log];
const local = new Map(models.map((m) => [m.label, m]));
const openApiSchemas = Object.assign({}, ...models.map((m) => modelOpenApi(m, 'demo', local, []).schemas));

type Json = Record<string, any>;

describe('the change event envelope', () => {
  test('when a model is described, then its envelope has every ChangeEvent field, its label as model and data as its REST schema', () => {
    const s = envelopeSchema(widget) as Json;
    expect(s.required).toEqual(['id', 'event', 'model', 'object_id', 'version', 'timestamp', 'username', 'request_id', 'data', 'snapshots']);
    expect(s.additionalProperties).toBe(false);
    expect(s.properties.id).toMatchObject({ type: 'string', format: 'uuid' });
    expect(s.properties.event.enum).toEqual(['created', 'updated', 'deleted']);
    expect(s.properties.model).toMatchObject({ type: 'string', const: 'demo.widget' });
    expect(s.properties.timestamp).toMatchObject({ type: 'string', format: 'date-time' });
    expect(s.properties.data.$ref).toBe('#/components/schemas/Widget');
    expect(s.properties.snapshots.required).toEqual(['prechange', 'postchange']);
    expect(s.properties.snapshots.properties.prechange.type).toEqual(['object', 'null']);
  });
});

describe('OpenAPI schemas as JSON Schema', () => {
  test('when a schema is nullable, then null joins its type, its enum or a oneOf; other keywords are kept', () => {
    expect(jsonSchemaOf({ type: 'string', maxLength: 5, nullable: true })).toEqual({ type: ['string', 'null'], maxLength: 5 });
    expect(jsonSchemaOf({ type: 'string', enum: ['a'], nullable: true })).toEqual({ type: ['string', 'null'], enum: ['a', null] });
    expect(jsonSchemaOf({ allOf: [{ $ref: '#/components/schemas/X' }], nullable: true })).toEqual({ oneOf: [{ allOf: [{ $ref: '#/components/schemas/X' }] }, { type: 'null' }] });
    expect(jsonSchemaOf({ nullable: true })).toEqual({});
    expect(jsonSchemaOf({ type: 'integer', nullable: false, readOnly: true })).toEqual({ type: 'integer', readOnly: true });
    // property names are not keywords: a field called `nullable` or `type` stays a property
    expect(jsonSchemaOf({ type: 'object', properties: { type: { type: 'string', nullable: true }, nullable: { type: 'boolean' } } })).toEqual({
      type: 'object',
      properties: { type: { type: ['string', 'null'] }, nullable: { type: 'boolean' } },
    });
    expect(jsonSchemaOf({ type: 'array', items: { type: 'integer', nullable: true } })).toEqual({ type: 'array', items: { type: ['integer', 'null'] } });
  });
});

describe("a service's part of the events document", () => {
  const part = serviceAsyncApi(models, openApiSchemas) as unknown as Json;

  test('when models are declared, then each writable one has its three routing keys on the topic exchange, and read-only ones none', () => {
    expect(Object.keys(part.channels).sort()).toEqual(
      ['demo.group.created', 'demo.group.deleted', 'demo.group.updated', 'demo.widget.created', 'demo.widget.deleted', 'demo.widget.updated'],
    );
    const ch = part.channels['demo.widget.updated'];
    expect(ch.bindings.amqp).toMatchObject({ is: 'routingKey', exchange: { name: 'inventory.events', type: 'topic', durable: true } });
    expect(ch.subscribe.message.oneOf[0].$ref).toBe(`#/components/messages/${messageName(widget)}`);
    expect(ch.subscribe.bindings.amqp.deliveryMode).toBe(2);
    expect(part.components.messages.WidgetEvent.payload.properties.model.const).toBe('demo.widget');
    expect(part.components.messages.WidgetEvent['x-amqp-properties'].message_id).toBe('$message.payload#/id');
    // a pack of consecutive events of one routing key: an array of the same envelopes
    expect(ch.subscribe.message.oneOf[1].$ref).toBe(`#/components/messages/${messageName(widget)}Pack`);
    expect(part.components.messages.WidgetEventPack.payload).toMatchObject({ type: 'array', minItems: 2 });
    expect(part.components.messages.WidgetEventPack.payload.items).toEqual(part.components.messages.WidgetEvent.payload);
  });

  test('when schemas are copied, then exactly those the payloads reach come along, in JSON Schema, and every reference resolves', () => {
    const schemas = part.components.schemas;
    expect(Object.keys(schemas).sort()).toEqual(['BriefGroup', 'BriefTag', 'Group', 'Widget']);
    expect(schemas.Widget.properties.description.type).toBe('string');
    expect(schemas.Widget.properties.group).toEqual({ oneOf: [{ allOf: [{ $ref: '#/components/schemas/BriefGroup' }] }, { type: 'null' }] });
    // a relation to another service's model: an open object, or null
    expect(schemas.Widget.properties.owner.type).toEqual(['object', 'null']);
    const refs = JSON.stringify(part).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const r of refs) {
      const [, kind, name] = /#\/components\/(schemas|messages)\/(.+)"$/.exec(r)!;
      expect(part.components[kind][name]).toBeDefined();
    }
    expect(JSON.stringify(part)).not.toContain('"nullable"');
  });
});
