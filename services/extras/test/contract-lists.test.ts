import pg from 'pg';
import { contentType } from '@inventory/refs';
import { bootStack, eventually, runModelContract, type Stack } from '@inventory/testkit';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as users } from '@inventory/users';
import { createService as extras, extrasModels } from '@inventory/extras';

/**
 * The contract of custom links, export templates, saved filters and
 * bookmarks (spec C.10). The stack's superuser (id 1, `admin`) is made in
 * users first, so the bookmarks it owns show it nested.
 */
let stack: Stack;
/** Tenants to bookmark, made before the contract runs: a write that made one would see extras' copy of it change meanwhile. */
const POOL = 600;
let tenants: number[] = [];
const extrasHolds = async (query: string, what: string) =>
  eventually(async () => {
    const client = new pg.Client({ connectionString: stack.databaseUrl });
    await client.connect();
    try {
      return (await client.query(query)).rows[0]?.ok === true;
    } finally {
      await client.end();
    }
  }, 30_000, what);
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, users }, {}, { template: true });
  const admin = await stack.client('users').post('/api/users/users/', { username: 'admin', password: 'admin-password-1' });
  if (admin.status !== 201 || admin.body.id !== 1) throw new Error(`the superuser must be user 1: ${admin.status} ${admin.text}`);
  const made = await stack.client('tenancy').post('/api/tenancy/tenants/', Array.from({ length: POOL }, (_, i) => ({ name: `Marked ${i}`, slug: `marked-${i}` })));
  if (made.status !== 201) throw new Error(`tenants: ${made.status} ${made.text.slice(0, 300)}`);
  tenants = (made.body as { id: number }[]).map((t) => t.id);
  // extras' copies (its projections) hold them before bookmarks name them
  await extrasHolds('SELECT EXISTS (SELECT 1 FROM extras."_proj_auth_user" WHERE id = 1 AND NOT deleted) AS ok', 'user 1 in extras');
  await extrasHolds(`SELECT count(*) >= ${POOL} AS ok FROM extras."_proj_tenancy_tenant" WHERE NOT deleted`, 'the tenants in extras');
}, 120_000);
afterAll(() => stack?.stop());

runModelContract('custom link', {
  stack: () => stack,
  service: 'extras',
  model: extrasModels.customLink,
  path: '/api/extras/custom-links/',
  schema: 'CustomLink',
  make: (i) => ({
    name: `Link ${i}`,
    content_types: i % 2 ? ['dcim.site'] : ['dcim.device', 'tenancy.tenant'],
    link_text: `Open {{ object.name }} ${i}`,
    link_url: `https://example.com/{{ object.pk }}/${i}`,
    weight: (i % 4) * 10,
    group_name: i % 3 ? '' : 'Tools',
    button_class: i % 2 ? 'blue' : 'ghost-dark',
    new_window: i % 2 === 0,
  }),
  patch: { enabled: false, weight: 5, button_class: 'red', new_window: true },
  badPatch: { button_class: 'mauve' },
  invalid: [
    { body: { name: 'no url', content_types: ['dcim.site'], link_text: 'x' }, field: 'link_url' },
    { body: { name: 'bad class', content_types: ['dcim.site'], link_text: 'x', link_url: 'y', button_class: 'mauve' }, field: 'button_class' },
    { body: { name: 'bad type', content_types: ['extras.tag'], link_text: 'x', link_url: 'y' }, field: 'content_types' },
    { body: { name: 'no types', link_text: 'x', link_url: 'y' }, field: 'content_types' },
    { body: { name: 'heavy', content_types: ['dcim.site'], link_text: 'x', link_url: 'y', weight: 40000 }, field: 'weight' },
  ],
  brief: ['name'],
  choices: ['button_class'],
  filters: [
    { query: () => 'content_types=dcim.site', expect: (o) => o.filter((x) => x.content_types.includes('dcim.site')) },
    { query: () => `content_type_id=${contentType('dcim.site')!.id}`, expect: (o) => o.filter((x) => x.content_types.includes('dcim.site')) },
    { query: (o) => `q=${encodeURIComponent(o[1].name)}`, expect: (o) => [o[1]] },
    { query: () => 'new_window=true', expect: (o) => o.filter((x) => x.new_window) },
    { query: () => 'content_types__n=dcim.site', expect: (o) => o.filter((x) => !x.content_types.includes('dcim.site')) },
    { query: () => `content_type_id__n=${contentType('dcim.site')!.id}`, expect: (o) => o.filter((x) => !x.content_types.includes('dcim.site')) },
    { query: () => 'content_types__ic=TENANT', expect: (o) => o.filter((x) => x.content_types.includes('tenancy.tenant')) },
  ],
});

runModelContract('export template', {
  stack: () => stack,
  service: 'extras',
  model: extrasModels.exportTemplate,
  path: '/api/extras/export-templates/',
  schema: 'ExportTemplate',
  make: (i) => ({
    name: `Export ${i}`,
    content_types: i % 2 ? ['dcim.device'] : ['dcim.site', 'ipam.prefix'],
    template_code: `{% for o in queryset %}{{ o.name }},${i}\n{% endfor %}`,
    mime_type: i % 2 ? 'text/csv' : '',
    file_extension: i % 2 ? 'csv' : '',
    as_attachment: i % 3 !== 0,
  }),
  patch: { description: 'patched', mime_type: 'application/json', as_attachment: false },
  badPatch: { name: 'Table' },
  invalid: [
    { body: { name: 'table', content_types: ['dcim.site'], template_code: 'x' }, field: 'name' },
    { body: { name: 'no code', content_types: ['dcim.site'] }, field: 'template_code' },
    { body: { name: 'no types', template_code: 'x' }, field: 'content_types' },
    { body: { name: 'long mime', content_types: ['dcim.site'], template_code: 'x', mime_type: 'x'.repeat(51) }, field: 'mime_type' },
  ],
  brief: ['name'],
  filters: [
    { query: () => 'content_types=ipam.prefix', expect: (o) => o.filter((x) => x.content_types.includes('ipam.prefix')) },
    { query: (o) => `name=${encodeURIComponent(o[2].name)}`, expect: (o) => [o[2]] },
    { query: () => 'data_source_id=null', expect: (o) => o },
    { query: () => 'data_source_id__n=null', expect: () => [] },
    { query: () => 'data_file_id=null', expect: (o) => o },
    { query: () => 'data_file_id__n=null', expect: () => [] },
    { query: () => 'data_synced=2024-01-01T00:00:00Z', expect: () => [] },
    { query: () => 'data_synced__n=2024-01-01T00:00:00Z', expect: (o) => o },
    { query: () => 'data_synced__gte=2000-01-01T00:00:00Z', expect: () => [] },
    { query: () => 'data_synced__empty=true', expect: (o) => o },
    { query: () => 'data_synced__empty=false', expect: () => [] },
    { query: () => 'content_types__n=ipam.prefix', expect: (o) => o.filter((x) => !x.content_types.includes('ipam.prefix')) },
    { query: () => 'content_types__ic=PREFIX', expect: (o) => o.filter((x) => x.content_types.some((c: string) => c.includes('prefix'))) },
    { query: () => 'content_types__nic=prefix', expect: (o) => o.filter((x) => !x.content_types.some((c: string) => c.includes('prefix'))) },
    { query: () => 'content_types__isw=dcim.d', expect: (o) => o.filter((x) => x.content_types.includes('dcim.device')) },
    { query: () => 'content_types__nisw=dcim.d', expect: (o) => o.filter((x) => !x.content_types.includes('dcim.device')) },
    { query: () => 'content_types__iew=.SITE', expect: (o) => o.filter((x) => x.content_types.includes('dcim.site')) },
    { query: () => 'content_types__niew=.site', expect: (o) => o.filter((x) => !x.content_types.includes('dcim.site')) },
    { query: () => 'content_types__ie=DCIM.Device', expect: (o) => o.filter((x) => x.content_types.includes('dcim.device')) },
    { query: () => 'content_types__nie=dcim.device', expect: (o) => o.filter((x) => !x.content_types.includes('dcim.device')) },
    ...(['lt', 'lte', 'gt', 'gte'] as const).map((lookup) => {
      const site = contentType('dcim.site')!.id;
      const cmp = { lt: (id: number) => id < site, lte: (id: number) => id <= site, gt: (id: number) => id > site, gte: (id: number) => id >= site }[lookup];
      return {
        query: () => `content_type_id__${lookup}=${site}`,
        expect: (o: any[]) => o.filter((x) => x.content_types.some((c: string) => cmp(contentType(c)!.id))),
      };
    }),
    { query: () => 'content_type_id__empty=0', expect: (o) => o },
    { query: () => 'content_type_id__empty=1', expect: () => [] },
  ],
});

runModelContract('saved filter', {
  stack: () => stack,
  service: 'extras',
  model: extrasModels.savedFilter,
  path: '/api/extras/saved-filters/',
  schema: 'SavedFilter',
  make: (i) => ({
    name: `Filter ${i}`,
    slug: `filter-${i}`,
    content_types: i % 2 ? ['dcim.device'] : ['dcim.site'],
    weight: (i % 5) * 10,
    // private ones are the superuser's own: the cross-service pass reads them as another user (lists-gateway.test.ts has the private ones)
    shared: true,
    enabled: i % 4 !== 0,
    parameters: { status: ['active'], q: `x${i}` },
  }),
  patch: { description: 'patched', shared: false, parameters: { tenant: ['t1'] } },
  badPatch: { parameters: ['not', 'a', 'dict'] },
  invalid: [
    { body: { name: 'list params', slug: 'list-params', content_types: ['dcim.site'], parameters: [1] }, field: 'parameters' },
    { body: { name: 'no params', slug: 'no-params', content_types: ['dcim.site'] }, field: 'parameters' },
    { body: { name: 'bad slug', slug: 'bad slug', content_types: ['dcim.site'], parameters: {} }, field: 'slug' },
    { body: { name: 'dict user', slug: 'dict-user', content_types: ['dcim.site'], parameters: {}, user: { username: 'admin' } }, field: 'user' },
    { body: { name: 'no user', slug: 'no-user', content_types: ['dcim.site'], parameters: {}, user: 999999 }, field: 'user' },
  ],
  brief: ['name', 'slug'],
  targets: { 'auth.user': (i) => ({ username: `filter-owner-${i}`, password: 'owner-password-1' }) },
  filters: [
    { query: () => 'content_types=dcim.site', expect: (o) => o.filter((x) => x.content_types.includes('dcim.site')) },
    { query: () => 'usable=true', expect: (o) => o.filter((x) => x.enabled && (x.shared || x.user === 1)) },
    { query: (o) => `slug=${o[1].slug}`, expect: (o) => [o[1]] },
    { query: () => 'user_id=1', expect: (o) => o },
    { query: () => 'content_types__n=dcim.site', expect: (o) => o.filter((x) => !x.content_types.includes('dcim.site')) },
    { query: () => 'content_types__nie=DCIM.device', expect: (o) => o.filter((x) => !x.content_types.includes('dcim.device')) },
    { query: () => `content_type_id__gte=${contentType('dcim.site')!.id}&content_type_id__lte=${contentType('dcim.site')!.id}`, expect: (o) => o.filter((x) => x.content_types.includes('dcim.site')) },
  ],
});

/** One tenant per bookmark (a bookmark is unique per object and user). */
const tenantFor = (i: number) => {
  if (i > POOL) throw new Error(`bookmark ${i}: only ${POOL} tenants were made`);
  return tenants[i - 1];
};

runModelContract('bookmark', {
  stack: () => stack,
  service: 'extras',
  model: extrasModels.bookmark,
  path: '/api/extras/bookmarks/',
  schema: 'Bookmark',
  make: (i) => ({ object_type: 'tenancy.tenant', object_id: tenantFor(i) }),
  patch: { object_type: 'tenancy.tenant' },
  badPatch: { object_type: 'extras.tag' },
  invalid: [
    { body: { object_type: 'tenancy.tenant', object_id: 99999999 }, field: 'object_id' },
    { body: { object_type: 'extras.tag', object_id: 1 }, field: 'object_type' },
    { body: { object_id: 1 }, field: 'object_type' },
    { body: { object_type: 'tenancy.tenant' }, field: 'object_id' },
  ],
  brief: ['object_id', 'object_type'],
  targets: { 'auth.user': (i) => ({ username: `marker-${i}`, password: 'marker-password-1' }) },
  volume: 20,
  filters: [
    { query: (o) => `object_id=${o[1].object_id}`, expect: (o) => [o[1]] },
    { query: () => 'object_type=tenancy.tenant', expect: (o) => o },
    { query: () => `object_type_id=${contentType('tenancy.tenant')!.id}`, expect: (o) => o },
    { query: () => 'user=admin', expect: (o) => o },
    { query: () => 'object_type__n=tenancy.tenant', expect: () => [] },
    { query: () => 'object_type__n=tenancy.contact', expect: (o) => o },
    { query: () => `object_type_id__n=${contentType('tenancy.tenant')!.id}`, expect: () => [] },
    { query: () => `object_type_id__lte=${contentType('tenancy.tenant')!.id}`, expect: (o) => o },
    { query: () => `object_type_id__lt=${contentType('tenancy.tenant')!.id}`, expect: () => [] },
    { query: () => `object_type_id__gte=${contentType('tenancy.tenant')!.id}`, expect: (o) => o },
    { query: () => `object_type_id__gt=${contentType('tenancy.tenant')!.id}`, expect: () => [] },
    { query: () => 'object_type_id__empty=1', expect: () => [] },
    { query: () => 'object_type_id__empty=0', expect: (o) => o },
  ],
});
