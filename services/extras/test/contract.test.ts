import { bootStack, runModelContract, type Stack } from '@inventory/testkit';
import type { RestService } from '@inventory/rest';
import { createService as tenancy } from '@inventory/tenancy';
import { bootstrapAdmin, createService as users } from '@inventory/users';
import { createService as extras, extrasModels } from '@inventory/extras';
import { contentType } from '@inventory/refs';

let stack: Stack;
beforeAll(async () => {
  // users: journal entries name their author; the first user (id 1) is the test identity's (a superuser named admin)
  let usersService: RestService | undefined;
  stack = await bootStack({ extras, tenancy, users: (c) => (usersService = users(c)) }, {}, { template: true });
  await bootstrapAdmin(usersService!, { SUPERUSER_NAME: 'admin', SUPERUSER_PASSWORD: 'admin-password-1', SUPERUSER_API_TOKEN: '0123456789abcdef0123456789abcdef01234567' });
});
afterAll(() => stack?.stop());

runModelContract('tag', {
  stack: () => stack,
  service: 'extras',
  model: extrasModels.tag,
  path: '/api/extras/tags/',
  schema: 'Tag',
  make: (i) => ({ name: `Tag ${i}`, slug: `tag-${i}`, color: i % 2 ? 'ff0000' : '00ff00' }),
  patch: { description: 'patched', color: 'aabbcc' },
  badPatch: { color: 'red' },
  invalid: [
    { body: { name: 'bad color', slug: 'bad-color', color: '#ff0000' }, field: 'color' },
    { body: { name: 'no slug' }, field: 'slug' },
    { body: { name: 'bad types', slug: 'bad-types', object_types: ['nope.nope'] }, field: 'object_types' },
  ],
  brief: ['name', 'slug', 'color'],
  filters: [{ query: (o) => `color=${o[0].color}`, expect: (o) => o.filter((x) => x.color === o[0].color) }],
});

runModelContract('custom field choice set', {
  stack: () => stack,
  service: 'extras',
  model: extrasModels.choiceSet,
  path: '/api/extras/custom-field-choice-sets/',
  schema: 'CustomFieldChoiceSet',
  make: (i) => ({ name: `Set ${i}`, extra_choices: [['a', 'A'], ['b', 'B']] }),
  patch: { description: 'patched' },
  badPatch: { extra_choices: 'nope' },
  invalid: [
    { body: { name: 'empty', extra_choices: [] }, field: '__all__' },
    { body: { name: 'no choices' }, field: 'extra_choices' },
  ],
  brief: ['name', 'choices_count'],
  filters: [
    { query: () => 'choice=a', expect: (o) => o },
    { query: () => 'choice=B', expect: (o) => o },
    { query: () => 'choice=zz&choice=', expect: () => [] },
    { query: () => 'choice=', expect: (o) => o },
  ],
});

runModelContract('custom field', {
  stack: () => stack,
  service: 'extras',
  model: extrasModels.customField,
  path: '/api/extras/custom-fields/',
  schema: 'CustomField',
  make: (i) => ({ name: `field_${i}`, content_types: ['dcim.site'], type: 'integer', validation_minimum: 1, default: 5 }),
  patch: { label: 'Patched', weight: 50 },
  badPatch: { filter_logic: 'fuzzy' },
  invalid: [
    { body: { name: 'bad-name', content_types: ['dcim.site'] }, field: 'name' },
    { body: { name: 'double__under', content_types: ['dcim.site'] }, field: 'name' },
    { body: { name: 'min_on_text', content_types: ['dcim.site'], type: 'text', validation_minimum: 3 }, field: 'validation_minimum' },
    { body: { name: 'select_no_set', content_types: ['dcim.site'], type: 'select' }, field: 'choice_set' },
    { body: { name: 'obj_no_type', content_types: ['dcim.site'], type: 'object' }, field: 'object_type' },
    { body: { name: 'bad_default', content_types: ['dcim.site'], type: 'integer', default: 'x' }, field: 'default' },
    { body: { name: 'no_types' }, field: 'content_types' },
  ],
  brief: ['name'],
  choices: ['type', 'filter_logic'],
  filters: [
    { query: () => 'content_types__n=dcim.site', expect: () => [] },
    { query: () => 'content_types__n=dcim.device', expect: (o) => o },
    { query: () => 'content_types__isw=dcim.', expect: (o) => o },
    { query: () => 'content_types__nisw=dcim.', expect: () => [] },
  ],
});

/** Made once per file: a tenant (tenancy, another service) and a tag, which contexts use as criteria. */
let criteria: Promise<{ tenant: number; tag: string }> | null = null;
const theCriteria = () =>
  (criteria ??= (async () => {
    const t = await stack.client('tenancy').post('/api/tenancy/tenants/', { name: 'Context tenant', slug: 'context-tenant' });
    const g = await stack.client('extras').post('/api/extras/tags/', { name: 'Context tag', slug: 'context-tag' });
    if (t.status !== 201 || g.status !== 201) throw new Error(`criteria: ${t.text} ${g.text}`);
    return { tenant: t.body.id as number, tag: g.body.slug as string };
  })());

runModelContract('config context', {
  stack: () => stack,
  service: 'extras',
  model: extrasModels.configContext,
  path: '/api/extras/config-contexts/',
  schema: 'ConfigContext',
  make: async (i) => {
    const c = await theCriteria();
    return { name: `Context ${i}`, weight: (i % 3) * 100, data: { i, nested: { even: i % 2 === 0 } }, ...(i % 2 ? { tenants: [c.tenant], tags: [c.tag] } : {}) };
  },
  patch: { description: 'patched', weight: 5, is_active: false, data: { patched: true } },
  badPatch: { weight: 40000 },
  invalid: [
    { body: { name: 'no data' }, field: 'data' },
    { body: { name: 'list data', data: [1, 2] }, field: 'data' },
    { body: { name: 'bad tag', data: {}, tags: ['no-such-tag'] }, field: 'tags' },
    { body: { name: 'bad tenant', data: {}, tenants: [999999] }, field: 'tenants' },
    { body: { name: 'bad region', data: {}, regions: [{ slug: 'x' }] }, field: 'regions' },
  ],
  brief: ['name'],
  filters: [
    { query: (o) => `weight=${o[1].weight}`, expect: (o) => o.filter((x) => x.weight === o[1].weight) },
    // the object with the tenant, whichever of the three it is (their numbers depend on how many objects earlier passes made)
    { query: (o) => `tenant_id=${o.find((x) => x.tenants.length)!.tenants[0].id}`, expect: (o) => o.filter((x) => x.tenants.length) },
    { query: () => 'tenant=context-tenant', expect: (o) => o.filter((x) => x.tenants.length) },
    { query: () => 'tag=context-tag', expect: (o) => o.filter((x) => x.tags.length) },
    { query: (o) => `q=${encodeURIComponent(o[0].name)}`, expect: (o) => o.filter((x) => x.name === o[0].name) },
    { query: () => 'data_synced=2024-01-01T00:00:00Z', expect: () => [] },
    { query: () => 'data_synced__empty=true', expect: (o) => o },
    { query: () => 'data_source_id=null', expect: (o) => o },
    { query: () => 'data_file_id__n=null', expect: () => [] },
  ],
});

runModelContract('config template', {
  stack: () => stack,
  service: 'extras',
  model: extrasModels.configTemplate,
  path: '/api/extras/config-templates/',
  schema: 'ConfigTemplate',
  make: (i) => ({ name: `Template ${i}`, template_code: `hostname {{ device.name }}-${i}`, environment_params: i % 2 ? { trim_blocks: true } : {} }),
  patch: { description: 'patched', template_code: '{% for i in items %}{{ i }}{% endfor %}' },
  badPatch: { template_code: null },
  invalid: [
    { body: { name: 'no code' }, field: 'template_code' },
    { body: { template_code: 'x' }, field: 'name' },
  ],
  brief: ['name'],
  filters: [
    { query: () => 'data_synced__n=2024-01-01T00:00:00Z', expect: (o) => o },
    { query: () => 'data_synced__lt=2100-01-01T00:00:00Z', expect: () => [] },
    { query: () => 'data_source_id__n=null', expect: () => [] },
    { query: () => 'data_file_id=null', expect: (o) => o },
  ],
});

runModelContract('data source', {
  stack: () => stack,
  service: 'extras',
  model: extrasModels.dataSource,
  path: '/api/core/data-sources/',
  schema: 'DataSource',
  // git sources: the stack allows no local folder (DATA_SOURCE_LOCAL_ROOTS unset), https by default
  make: (i) => ({
    name: `Source ${i}`,
    type: 'git',
    source_url: `https://example.com/repo-${i}.git`,
    parameters: i % 2 ? { branch: 'main' } : null,
    ignore_rules: i % 3 ? '*.log' : '',
    enabled: i % 4 !== 0,
  }),
  patch: { description: 'patched', enabled: false, parameters: { branch: 'dev', username: 'me' } },
  badPatch: { type: 'amazon-s3' },
  invalid: [
    { body: { name: 'no url', type: 'git' }, field: 'source_url' },
    { body: { name: 'ssh', type: 'git', source_url: 'ssh://git@example.com/r.git' }, field: 'source_url' },
    { body: { name: 'local', type: 'local', source_url: 'file:///srv/data' }, field: 'source_url' },
    { body: { name: 'bad branch', type: 'git', source_url: 'https://example.com/r.git', parameters: { branch: '--upload-pack=x' } }, field: 'parameters' },
    { body: { name: 'no type', source_url: 'https://example.com/r.git' }, field: 'type' },
  ],
  brief: ['name'],
  choices: ['type'],
  filters: [
    { query: () => 'type=git', expect: (o) => o },
    { query: () => 'status=new', expect: (o) => o },
    { query: () => 'status__n=new', expect: () => [] },
    { query: () => 'enabled=false', expect: (o) => o.filter((x) => !x.enabled) },
    { query: () => 'q=repo', expect: () => [] },
    { query: (o) => `q=${encodeURIComponent(o[1].name)}`, expect: (o) => [o[1]] },
  ],
});

/** Made once per file: the tenants (tenancy, another service) the journal entries are written on. */
let journaledTenants: Promise<number[]> | null = null;
const theTenants = () =>
  (journaledTenants ??= (async () => {
    const ids: number[] = [];
    for (const n of [1, 2]) {
      const t = await stack.client('tenancy').post('/api/tenancy/tenants/', { name: `Journaled tenant ${n}`, slug: `journaled-tenant-${n}` });
      if (t.status !== 201) throw new Error(`tenant: ${t.text}`);
      ids.push(t.body.id as number);
    }
    return ids;
  })());

runModelContract('journal entry', {
  stack: () => stack,
  service: 'extras',
  model: extrasModels.journalEntry,
  path: '/api/extras/journal-entries/',
  schema: 'JournalEntry',
  make: async (i) => {
    const tenants = await theTenants();
    return { assigned_object_type: 'tenancy.tenant', assigned_object_id: tenants[i % 2], kind: ['info', 'success', 'warning', 'danger'][i % 4], comments: `Entry ${i}` };
  },
  patch: { comments: 'patched', kind: 'danger' },
  badPatch: { kind: 'critical' },
  invalid: [
    { body: { assigned_object_type: 'tenancy.tenant', assigned_object_id: 1 }, field: 'comments' },
    { body: { assigned_object_id: 1, comments: 'no type' }, field: 'assigned_object_type' },
    { body: { assigned_object_type: 'tenancy.tenant', comments: 'no id' }, field: 'assigned_object_id' },
    { body: { assigned_object_type: 'nope.nope', assigned_object_id: 1, comments: 'bad type' }, field: 'assigned_object_type' },
    { body: { assigned_object_type: 'tenancy.tenant', assigned_object_id: 999999, comments: 'no such tenant' }, field: 'non_field_errors' },
  ],
  brief: ['created'],
  choices: ['kind'],
  targets: { 'auth.user': (i) => ({ username: `journalist-${i}`, password: 'journalist-password-1' }) },
  filters: [
    { query: () => 'kind=danger', expect: (o) => o.filter((x) => x.kind.value === 'danger') },
    { query: (o) => `assigned_object_id=${o[0].assigned_object_id}`, expect: (o) => o.filter((x) => x.assigned_object_id === o[0].assigned_object_id) },
    { query: () => 'assigned_object_type=tenancy.tenant', expect: (o) => o },
    { query: () => 'assigned_object_type__n=tenancy.tenant', expect: () => [] },
    { query: () => 'assigned_object_type__n=dcim.site', expect: (o) => o },
    { query: () => `assigned_object_type_id=${contentType('tenancy.tenant')!.id}`, expect: (o) => o },
    { query: () => `assigned_object_type_id=${contentType('dcim.site')!.id}`, expect: () => [] },
    { query: () => 'created_by_id=1', expect: (o) => o },
    { query: () => 'created_by=admin', expect: (o) => o },
    { query: () => 'created_after=2000-01-01T00:00:00Z', expect: (o) => o },
    { query: () => 'created_before=2000-01-01T00:00:00Z', expect: () => [] },
    { query: (o) => `q=${encodeURIComponent(o[2].comments)}`, expect: (o) => o.filter((x) => x.comments === o[2].comments) },
  ],
});
