import { bootStack, runModelContract, type Stack } from '@inventory/testkit';
import { contentType } from '@inventory/refs';
import { createService as extras } from '@inventory/extras';
import { createService as webhooks, webhooksModels } from '@inventory/webhooks';

let stack: Stack;
beforeAll(async () => {
  stack = await bootStack({ extras, webhooks }, {}, { template: true });
});
afterAll(() => stack?.stop());

const hook = (name: string, more: Record<string, unknown> = {}) => ({
  name,
  content_types: ['dcim.site'],
  type_create: true,
  payload_url: 'http://127.0.0.1:9000/',
  ...more,
});

runModelContract('webhook', {
  stack: () => stack,
  service: 'webhooks',
  model: webhooksModels.webhook,
  path: '/api/extras/webhooks/',
  schema: 'Webhook',
  make: (i) => ({
    name: `Webhook ${i}`,
    content_types: i % 2 ? ['dcim.site'] : ['dcim.site', 'tenancy.tenant'],
    type_create: true,
    type_update: i % 2 === 0,
    type_delete: i % 3 === 0,
    payload_url: `http://127.0.0.1:9000/hook/${i}/`,
    http_method: i % 2 ? 'POST' : 'PUT',
    enabled: i % 4 !== 0,
    secret: `secret-${i}`,
    conditions: i % 2 ? { and: [{ attr: 'status.value', value: 'active' }] } : null,
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', http_method: 'PATCH', enabled: false, type_delete: true },
  badPatch: { http_method: 'PUSH' },
  invalid: [
    { body: hook('no event type', { type_create: false }), field: '__all__' },
    { body: hook('bad method', { http_method: 'PUSH' }), field: 'http_method' },
    { body: hook('bad conditions', { conditions: ['status', 'active'] }), field: 'conditions' },
    { body: hook('no types', { content_types: undefined }), field: 'content_types' },
    { body: hook('no event types of it', { content_types: ['extras.objectchange'] }), field: 'content_types' },
    { body: hook('no url', { payload_url: undefined }), field: 'payload_url' },
    { body: hook('x'.repeat(151)), field: 'name' },
    { body: hook('ca without ssl', { ssl_verification: false, ca_file_path: '/etc/ssl/ca.pem' }), field: 'ca_file_path' },
  ],
  brief: ['name'],
  choices: ['http_method'],
  filters: [
    { query: () => 'http_method=PUT', expect: (o) => o.filter((x) => x.http_method === 'PUT') },
    { query: () => 'type_update=true', expect: (o) => o.filter((x) => x.type_update) },
    { query: () => 'content_types=tenancy.tenant', expect: (o) => o.filter((x) => x.content_types.includes('tenancy.tenant')) },
    { query: () => `content_type_id=${contentType('tenancy.tenant')!.id}`, expect: (o) => o.filter((x) => x.content_types.includes('tenancy.tenant')) },
    { query: () => 'enabled=false', expect: (o) => o.filter((x) => !x.enabled) },
    { query: (o) => `description=${o[1].description}`, expect: (o) => o.filter((x) => x.description === o[1].description) },
    { query: () => 'q=webhook', expect: (o) => o },
  ],
});

/** The webhook an event rule acts with: made once, in NetBox 3.7's shape (no triggers of its own). */
let target: Promise<number> | null = null;
const ruleTarget = () =>
  (target ??= stack
    .client('webhooks')
    .post('/api/extras/webhooks/', { name: 'Event rule target', payload_url: 'http://127.0.0.1:9000/rules/' })
    .then((r) => r.body.id as number));

/** An invalid body's rest: the bodies are fixed before any webhook exists, so they name none (only the field checked matters). */
const rule = (name: string, more: Record<string, unknown> = {}) => ({
  name,
  content_types: ['dcim.site'],
  type_create: true,
  action_object_type: 'extras.webhook',
  action_object_id: 999999,
  ...more,
});

runModelContract('event rule', {
  stack: () => stack,
  service: 'webhooks',
  model: webhooksModels.eventRule,
  path: '/api/extras/event-rules/',
  schema: 'EventRule',
  make: async (i) => ({
    name: `Rule ${i}`,
    content_types: i % 2 ? ['dcim.site'] : ['dcim.site', 'tenancy.tenant'],
    type_create: i % 2 === 1,
    type_update: i % 2 === 0,
    type_job_end: i % 3 === 0,
    enabled: i % 4 !== 0,
    conditions: i % 2 ? { and: [{ attr: 'status.value', value: 'active' }] } : null,
    action_type: 'webhook',
    action_object_type: 'extras.webhook',
    action_object_id: await ruleTarget(),
    description: `d${i % 3}`,
  }),
  patch: { description: 'patched', enabled: false, type_delete: true },
  badPatch: { action_type: 'email' },
  invalid: [
    { body: rule('no event type', { type_create: false }), field: '__all__' },
    { body: rule('script', { action_type: 'script' }), field: 'action_type' },
    { body: rule('not a webhook', { action_object_type: 'tenancy.tenant' }), field: 'action_object_type' },
    { body: rule('no such webhook', { action_object_id: 999999 }), field: 'action_object_id' },
    { body: rule('bad conditions', { conditions: ['status', 'active'] }), field: 'conditions' },
    { body: rule('no types', { content_types: undefined }), field: 'content_types' },
    { body: rule('x'.repeat(151)), field: 'name' },
  ],
  brief: ['name'],
  choices: ['action_type'],
  filters: [
    { query: () => 'type_update=true', expect: (o) => o.filter((x) => x.type_update) },
    { query: () => 'type_job_end=true', expect: (o) => o.filter((x) => x.type_job_end) },
    { query: () => 'enabled=false', expect: (o) => o.filter((x) => !x.enabled) },
    { query: () => 'action_type=webhook', expect: (o) => o },
    { query: () => 'action_object_type=extras.webhook', expect: (o) => o },
    { query: (o) => `action_object_id=${o[0].action_object_id}`, expect: (o) => o },
    { query: () => 'content_types=tenancy.tenant', expect: (o) => o.filter((x) => x.content_types.includes('tenancy.tenant')) },
    { query: () => `content_type_id=${contentType('tenancy.tenant')!.id}`, expect: (o) => o.filter((x) => x.content_types.includes('tenancy.tenant')) },
    { query: (o) => `description=${o[1].description}`, expect: (o) => o.filter((x) => x.description === o[1].description) },
    { query: () => 'q=rule', expect: (o) => o },
  ],
});
