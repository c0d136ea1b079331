import pg from 'pg';
import { Parser } from '@asyncapi/parser';
import { readConfig } from '@inventory/core';
import { bootStack, Client, OpenApiChecker, TEST_SECRET, type Stack } from '@inventory/testkit';
import { createService as users, usersModels } from '@inventory/users';
import { createService as tenancy, tenancyModels } from '@inventory/tenancy';
import { createService as extras, extrasModels } from '@inventory/extras';
import { createGateway, gatewayConfig, type Gateway } from '@inventory/gateway';

/**
 * The change events are documented: GET /api/schema/events/ is one AsyncAPI
 * document of the `inventory.events` exchange, merged from every service's
 * /internal/asyncapi like the OpenAPI document, and what the outbox holds
 * matches it.
 */
type Json = Record<string, any>;

let stack: Stack;
let gw: Client;
let anon: Client;
let key: string;
let strict: Gateway | null = null;

beforeAll(async () => {
  stack = await bootStack({
    users,
    tenancy,
    extras,
    gateway: (cfg) => createGateway(readConfig(gatewayConfig, { INTERNAL_TOKEN_SECRET: cfg.INTERNAL_TOKEN_SECRET, SERVICE_URLS: cfg.SERVICE_URLS, PORT: String(cfg.PORT), LOG_LEVEL: 'silent' })),
  }, {}, { template: true });
  const admin = await stack.client('users').post('/api/users/users/', { username: 'events-reader', password: 'reader-password-1' });
  await stack.client('users').post('/api/users/permissions/', { name: 'tenancy', object_types: ['tenancy.tenant'], actions: ['view', 'add'], users: [admin.body.id] });
  key = (await stack.client('users').post('/api/users/tokens/', { user: admin.body.id })).body.key;
  gw = new Client(stack.urls.gateway, { identity: null, headers: { authorization: `Token ${key}` } });
  anon = new Client(stack.urls.gateway, { identity: null });
});
afterAll(async () => {
  await strict?.stop();
  await stack?.stop();
});

/** Every `$ref` of the document, resolved as a JSON pointer inside it (none points outside). */
function unresolvedRefs(doc: Json): string[] {
  const bad: string[] = [];
  const resolve = (ref: string): unknown => {
    if (!ref.startsWith('#/')) return undefined;
    let node: any = doc;
    for (const part of ref.slice(2).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))) {
      if (!node || typeof node !== 'object' || !(part in node)) return undefined;
      node = node[part];
    }
    return node;
  };
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && (typeof x !== 'string' || resolve(x) === undefined)) bad.push(String(x));
      else walk(x);
    }
  };
  walk(doc);
  return bad;
}

/** The structure AsyncAPI 2.6 requires of what this document uses. */
function structuralProblems(doc: Json): string[] {
  const problems: string[] = [];
  if (!/^2\.6\.\d+$/.test(String(doc.asyncapi))) problems.push('asyncapi is not 2.6.x');
  if (typeof doc.info?.title !== 'string' || typeof doc.info?.version !== 'string') problems.push('info needs title and version');
  if (!doc.channels || typeof doc.channels !== 'object') problems.push('channels is required');
  for (const [name, server] of Object.entries<Json>(doc.servers ?? {})) {
    if (typeof server.url !== 'string' || typeof server.protocol !== 'string') problems.push(`server ${name} needs url and protocol`);
    for (const v of server.url.match(/\{([^}]+)\}/g) ?? []) if (!server.variables?.[v.slice(1, -1)]) problems.push(`server ${name}: no variable ${v}`);
  }
  const operationIds = new Set<string>();
  for (const [name, channel] of Object.entries<Json>(doc.channels ?? {})) {
    const ops = ['subscribe', 'publish'].filter((op) => channel[op]);
    if (!ops.length) problems.push(`channel ${name} has no operation`);
    for (const op of ops) {
      const id = channel[op].operationId;
      if (id !== undefined && operationIds.has(id)) problems.push(`operationId ${id} is not unique`);
      operationIds.add(id);
      if (!channel[op].message) problems.push(`channel ${name} ${op}: no message`);
    }
  }
  for (const [name, message] of Object.entries<Json>(doc.components?.messages ?? {})) {
    if (!message.payload) problems.push(`message ${name} has no payload`);
  }
  for (const [section, entries] of Object.entries<Json>(doc.components ?? {})) {
    for (const name of Object.keys(entries)) if (!/^[a-zA-Z0-9.\-_]+$/.test(name)) problems.push(`components.${section}: bad key ${name}`);
  }
  return [...problems, ...unresolvedRefs(doc).map((r) => `unresolved $ref ${r}`)];
}

const labelsOf = (models: { label: string; readOnly: boolean }[]) => models.filter((m) => !m.readOnly).map((m) => m.label);

describe('GET /api/schema/events/', () => {
  let doc: Json;
  beforeAll(async () => {
    const res = await gw.get('/api/schema/events/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = res.body;
  });

  test('when it is requested, then it is a structurally valid AsyncAPI 2.6 document of the amqp exchange', () => {
    expect(doc.asyncapi).toBe('2.6.0');
    expect(structuralProblems(doc)).toEqual([]);
    expect(Object.values<Json>(doc.servers).map((s) => s.protocol)).toEqual(['amqp']);
  });

  test('when the official AsyncAPI parser (what the CLI, generator and Studio use) loads it, then it reports no error', async () => {
    const parser = new Parser();
    const { document, diagnostics } = await parser.parse(JSON.stringify(doc));
    // severity 0 is an error (1 a warning, 2 information, 3 a hint)
    const errors = diagnostics.filter((d) => d.severity === 0).map((d) => `${d.code}: ${d.message} at ${d.path.join('.')}`);
    expect(errors).toEqual([]);
    expect(document?.channels().all().length).toBeGreaterThan(0);
  });

  test('when tenancy.tenant.created is looked up, then its message is the envelope with data as the Tenant schema of the components', () => {
    const channel = doc.channels['tenancy.tenant.created'];
    expect(channel).toBeDefined();
    expect(channel.bindings.amqp).toMatchObject({ is: 'routingKey', exchange: { name: 'inventory.events', type: 'topic', durable: true } });
    expect(channel.subscribe.bindings.amqp).toMatchObject({ deliveryMode: 2 });
    const ref: string = channel.subscribe.message.oneOf[0].$ref;
    const message = doc.components.messages[ref.split('/').pop()!];
    expect(message.payload.properties.model.const).toBe('tenancy.tenant');
    expect(message.payload.properties.id).toMatchObject({ type: 'string', format: 'uuid' });
    expect(message.payload.properties.data.$ref).toBe('#/components/schemas/Tenant');
    expect(doc.components.schemas.Tenant.properties.slug.type).toBe('string');
    expect(message['x-amqp-properties'].message_id).toBe('$message.payload#/id');
  });

  test('when the deployed services are users, tenancy and extras, then every model they publish has its three channels, and nothing else does', () => {
    const labels = [...labelsOf(usersModels.models), ...labelsOf(tenancyModels.models), ...labelsOf(extrasModels.models)];
    expect(labels).toEqual(expect.arrayContaining(['auth.user', 'users.token', 'tenancy.tenant', 'tenancy.contactassignment', 'extras.tag', 'extras.customfield']));
    const expected = labels.flatMap((l) => ['created', 'updated', 'deleted'].map((e) => `${l}.${e}`)).sort();
    expect(Object.keys(doc.channels).sort()).toEqual(expected);
    // the object-change log is read-only: never written through the API, never published
    expect(doc.channels['extras.objectchange.created']).toBeUndefined();
  });

  test('when a tenant is created, then the event its write left in the outbox matches the documented message', async () => {
    const created = await gw.post('/api/tenancy/tenants/', { name: 'Documented', slug: 'documented' });
    expect(created.status).toBe(201);
    const c = new pg.Client({ connectionString: stack.databaseUrl });
    await c.connect();
    let row: Json;
    try {
      // no broker in this stack: the event waits in the outbox, exactly as the relay will publish it
      ({ rows: [row] } = await c.query(`SELECT * FROM tenancy._outbox WHERE model = 'tenancy.tenant' AND object_id = $1 AND event = 'created'`, [created.body.id]));
    } finally {
      await c.end();
    }
    const event = {
      id: row.id,
      event: row.event,
      model: row.model,
      object_id: Number(row.object_id),
      version: Number(row.version),
      timestamp: new Date(row.timestamp).toISOString(),
      username: row.username,
      request_id: row.request_id,
      data: row.data,
      snapshots: row.snapshots,
    };
    const ref: string = doc.channels['tenancy.tenant.created'].subscribe.message.oneOf[0].$ref;
    const payload = doc.components.messages[ref.split('/').pop()!].payload;
    const checker = new OpenApiChecker({ paths: {}, components: { schemas: { ...doc.components.schemas, TenantEventPayload: payload } } });
    expect(() => checker.check('TenantEventPayload', event)).not.toThrow();
    expect(() => checker.check('TenantEventPayload', { ...event, model: 'tenancy.tenantgroup' })).toThrow();
    expect(() => checker.check('TenantEventPayload', { ...event, data: { ...event.data, slug: 7 } })).toThrow();
  });

  test('when the Swagger UI page is served, then it links the events document', async () => {
    const page = await anon.get('/api/docs/', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="../schema/events/"');
  });

  test('when a service answers its part directly, then it is its own models only', async () => {
    const part = await stack.serviceClient('tenancy').get('/internal/asyncapi');
    expect(part.status).toBe(200);
    expect(Object.keys(part.body.channels).every((k: string) => k.startsWith('tenancy.'))).toBe(true);
    expect(part.body.components.messages.TenantEvent).toBeDefined();
  });
});

describe('authentication of /api/schema/events/', () => {
  test('when no token is sent, then it answers as /api/schema/ does, also with LOGIN_REQUIRED on; a bad token is refused', async () => {
    expect((await anon.get('/api/schema/events/')).status).toBe(200);
    expect((await anon.get('/api/schema/events')).status).toBe(302);
    expect((await anon.get('/api/schema/events/', { headers: { authorization: 'Token 0123456789abcdef0123456789abcdef01234567' } })).status).toBe(403);
    const { gateway: _self, ...urls } = stack.urls;
    strict = createGateway(
      readConfig(gatewayConfig, {
        LOG_LEVEL: 'silent',
        INTERNAL_TOKEN_SECRET: TEST_SECRET,
        LOGIN_REQUIRED: 'true',
        SERVICE_URLS: Object.entries(urls)
          .map(([n, u]) => `${n}=${u}`)
          .join(','),
      }),
    );
    const server = await strict.start(0);
    const strictAnon = new Client(server.url, { identity: null });
    expect((await strictAnon.get('/api/tenancy/tenants/')).status).toBe(403);
    const schema = await strictAnon.get('/api/schema/');
    expect(schema.status).toBe(200);
    const events = await strictAnon.get('/api/schema/events/');
    expect(events.status).toBe(200);
    expect(events.body.channels['tenancy.tenant.created']).toBeDefined();
    // anonymous writes are refused first, as everywhere; with a token, the document is read-only
    expect((await strictAnon.post('/api/schema/events/', {})).status).toBe(403);
    expect((await gw.post('/api/schema/events/', {})).status).toBe(405);
  });
});
