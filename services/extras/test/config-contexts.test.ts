import pg from 'pg';
import { sql } from '@inventory/filtering';
import type { BaseConfig } from '@inventory/core';
import { createRestService, createModelTables, sharedTables, defineModel, f, ids, projectionTable, relatedId, renderConfigHandler, treeIds, type ModelDef, type Migration } from '@inventory/rest';
import { bootStack, eventually, type Client, type Stack } from '@inventory/testkit';
import { createService as extras } from '@inventory/extras';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as dcim } from '@inventory/dcim';

/**
 * The engine's config_context (libs/rest read/config-context.ts) on a test
 * service of its own: a small `virtualization` (cluster types, groups,
 * clusters, and a virtual machine that also names a location and a device
 * type, so every criterion is exercised). Its criteria read dcim (sites,
 * their region and group trees, locations: projected) and tenancy (the
 * tenant's group tree: projected) and its own clusters (local); contexts
 * come from extras by events, as they will for devices and VMs.
 */
type Obj = Record<string, any>;

const named = (label: string, endpoint: string, verboseName: string): ModelDef =>
  defineModel({
    label,
    endpoint,
    verboseName,
    fields: { name: f.name(100, { unique: true }), slug: f.slug(100, { unique: true }) },
    brief: ['name', 'slug'],
    display: (r) => String(r.name),
    ordering: ['name'],
  });

const clusterType = named('virtualization.clustertype', 'cluster-types', 'cluster type');
// a tree here (not in NetBox), so that a local tree criterion is exercised too
const clusterGroup = defineModel({
  label: 'virtualization.clustergroup',
  endpoint: 'cluster-groups',
  verboseName: 'cluster group',
  fields: { name: f.name(100, { unique: true }), slug: f.slug(100, { unique: true }), parent: f.fk('virtualization.clustergroup', 'CASCADE', { nullable: true }) },
  tree: true,
  brief: ['name', 'slug'],
  display: (r) => String(r.name),
  ordering: ['_tree'],
});
const cluster = defineModel({
  label: 'virtualization.cluster',
  endpoint: 'clusters',
  verboseName: 'cluster',
  fields: {
    name: f.name(100, { unique: true }),
    type: f.fk('virtualization.clustertype', 'PROTECT', { required: true }),
    group: f.fk('virtualization.clustergroup', 'SET_NULL'),
    config_template: f.fk('extras.configtemplate', 'PROTECT', { nullable: true, filterKey: null }),
  },
  brief: ['name'],
  display: (r) => String(r.name),
  ordering: ['name'],
});

const machine = defineModel({
  label: 'virtualization.virtualmachine',
  endpoint: 'virtual-machines',
  verboseName: 'virtual machine',
  fields: {
    name: f.name(64),
    site: f.fk('dcim.site', 'SET_NULL'),
    location: f.fk('dcim.location', 'SET_NULL'),
    device_type: f.fk('dcim.devicetype', 'SET_NULL'),
    role: f.fk('dcim.devicerole', 'SET_NULL'),
    platform: f.fk('dcim.platform', 'SET_NULL'),
    cluster: f.fk('virtualization.cluster', 'SET_NULL', { filterKey: null }),
    tenant: f.fk('tenancy.tenant', 'SET_NULL'),
    config_template: f.fk('extras.configtemplate', 'PROTECT', { nullable: true, filterKey: null }),
    local_context_data: f.json({ nullable: true, shape: 'object', filter: false }),
  },
  brief: ['name'],
  display: (r) => String(r.name),
  ordering: ['name'],
  configContext: {
    reads: ['dcim.region', 'dcim.sitegroup', 'tenancy.tenantgroup'],
    after: 'custom_fields',
    criteria: (ctx) => ({
      regions: treeIds(ctx, 'dcim.region', relatedId(ctx, 'dcim.site', sql`t.site_id`, 'region')),
      site_groups: treeIds(ctx, 'dcim.sitegroup', relatedId(ctx, 'dcim.site', sql`t.site_id`, 'group')),
      sites: ids(sql`t.site_id`),
      locations: treeIds(ctx, 'dcim.location', sql`t.location_id`),
      device_types: ids(sql`t.device_type_id`),
      roles: ids(sql`t.role_id`),
      platforms: ids(sql`t.platform_id`),
      cluster_types: ids(relatedId(ctx, 'virtualization.cluster', sql`t.cluster_id`, 'type')),
      cluster_groups: treeIds(ctx, 'virtualization.clustergroup', relatedId(ctx, 'virtualization.cluster', sql`t.cluster_id`, 'group')),
      clusters: ids(sql`t.cluster_id`),
      tenant_groups: treeIds(ctx, 'tenancy.tenantgroup', relatedId(ctx, 'tenancy.tenant', sql`t.tenant_id`, 'group')),
      tenants: ids(sql`t.tenant_id`),
      // tags: the machine's own, by default
    }),
  },
});

const testModels = [clusterType, clusterGroup, cluster, machine];
const testMigration: Migration = { name: '0001_test', up: ({ qi, schema }) => createModelTables(qi, schema, testModels) };
const virtualization = (config: BaseConfig) =>
  createRestService({
    name: 'virtualization',
    area: 'virtualization',
    config,
    models: testModels,
    migrations: [testMigration, sharedTables],
    // the machine's own template, else its cluster's (a stand-in for NetBox's role and platform)
    routes: (app, ctx) => app.post('/api/virtualization/virtual-machines/:id/render-config/', renderConfigHandler(ctx, machine, { templateFrom: ['config_template', 'cluster'] })),
  });

let stack: Stack;
let vz: Client;
let ex: Client;
beforeAll(async () => {
  stack = await bootStack({ extras, tenancy, dcim, virtualization }, process.env.CC_LOG ? { LOG_LEVEL: 'error' } : {});
  vz = stack.client('virtualization');
  ex = stack.client('extras');
});
afterAll(() => stack?.stop());

async function made(client: Client, path: string, body: Obj | Obj[]): Promise<any> {
  const r = await client.post(path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  return r.body;
}

const CRITERIA = ['regions', 'site_groups', 'sites', 'locations', 'device_types', 'roles', 'platforms', 'cluster_types', 'cluster_groups', 'clusters', 'tenant_groups', 'tenants', 'tags'];

interface World {
  /** Objects by criterion: `hit` the machine matches (for tree criteria the root above its node), `miss` another one. */
  hit: Record<string, Obj>;
  miss: Record<string, Obj>;
  vm: Obj;
  bare: Obj;
}

let world: Promise<World> | null = null;
/** One set of related objects for the file: trees two deep, a machine inside all of them and one outside. */
const theWorld = () =>
  (world ??= (async () => {
    const dc = stack.client('dcim');
    const tn = stack.client('tenancy');
    const r1 = await made(dc, '/api/dcim/regions/', { name: 'R1', slug: 'r1' });
    const r2 = await made(dc, '/api/dcim/regions/', { name: 'R2', slug: 'r2', parent: r1.id });
    const rx = await made(dc, '/api/dcim/regions/', { name: 'RX', slug: 'rx' });
    const g1 = await made(dc, '/api/dcim/site-groups/', { name: 'G1', slug: 'g1' });
    const g2 = await made(dc, '/api/dcim/site-groups/', { name: 'G2', slug: 'g2', parent: g1.id });
    const gx = await made(dc, '/api/dcim/site-groups/', { name: 'GX', slug: 'gx' });
    const site = await made(dc, '/api/dcim/sites/', { name: 'S1', slug: 's1', region: r2.id, group: g2.id });
    const sx = await made(dc, '/api/dcim/sites/', { name: 'SX', slug: 'sx' });
    const l1 = await made(dc, '/api/dcim/locations/', { name: 'L1', slug: 'l1', site: site.id });
    const l2 = await made(dc, '/api/dcim/locations/', { name: 'L2', slug: 'l2', site: site.id, parent: l1.id });
    const lx = await made(dc, '/api/dcim/locations/', { name: 'LX', slug: 'lx', site: sx.id });
    const maker = await made(dc, '/api/dcim/manufacturers/', { name: 'M', slug: 'm' });
    const dt = await made(dc, '/api/dcim/device-types/', { manufacturer: maker.id, model: 'DT', slug: 'dt' });
    const dtx = await made(dc, '/api/dcim/device-types/', { manufacturer: maker.id, model: 'DTX', slug: 'dtx' });
    const role = await made(dc, '/api/dcim/device-roles/', { name: 'Role', slug: 'role' });
    const rolex = await made(dc, '/api/dcim/device-roles/', { name: 'RoleX', slug: 'rolex' });
    const pf = await made(dc, '/api/dcim/platforms/', { name: 'PF', slug: 'pf' });
    const pfx = await made(dc, '/api/dcim/platforms/', { name: 'PFX', slug: 'pfx' });
    const tg1 = await made(tn, '/api/tenancy/tenant-groups/', { name: 'TG1', slug: 'tg1' });
    const tg2 = await made(tn, '/api/tenancy/tenant-groups/', { name: 'TG2', slug: 'tg2', parent: tg1.id });
    const tgx = await made(tn, '/api/tenancy/tenant-groups/', { name: 'TGX', slug: 'tgx' });
    const tenant = await made(tn, '/api/tenancy/tenants/', { name: 'T', slug: 't', group: tg2.id });
    const tenantx = await made(tn, '/api/tenancy/tenants/', { name: 'TX', slug: 'tx' });
    const ct = await made(vz, '/api/virtualization/cluster-types/', { name: 'CT', slug: 'ct' });
    const ctx = await made(vz, '/api/virtualization/cluster-types/', { name: 'CTX', slug: 'ctx' });
    const cg = await made(vz, '/api/virtualization/cluster-groups/', { name: 'CG', slug: 'cg' });
    const cgChild = await made(vz, '/api/virtualization/cluster-groups/', { name: 'CG child', slug: 'cg-child', parent: cg.id });
    const cgx = await made(vz, '/api/virtualization/cluster-groups/', { name: 'CGX', slug: 'cgx' });
    const cl = await made(vz, '/api/virtualization/clusters/', { name: 'CL', type: ct.id, group: cgChild.id });
    const clx = await made(vz, '/api/virtualization/clusters/', { name: 'CLX', type: ctx.id });
    const tag = await made(ex, '/api/extras/tags/', { name: 'Tag A', slug: 'tag-a' });
    const tagx = await made(ex, '/api/extras/tags/', { name: 'Tag X', slug: 'tag-x' });
    const vm = await made(vz, '/api/virtualization/virtual-machines/', {
      name: 'vm-in',
      site: site.id,
      location: l2.id,
      device_type: dt.id,
      role: role.id,
      platform: pf.id,
      cluster: cl.id,
      tenant: tenant.id,
      tags: [tag.id],
      local_context_data: { order: 'local', deep: { x: 9 } },
    });
    const bare = await made(vz, '/api/virtualization/virtual-machines/', { name: 'vm-out' });
    const out: World = {
      hit: { regions: r1, site_groups: g1, sites: site, locations: l1, device_types: dt, roles: role, platforms: pf, cluster_types: ct, cluster_groups: cg, clusters: cl, tenant_groups: tg1, tenants: tenant, tags: tag },
      miss: { regions: rx, site_groups: gx, sites: sx, locations: lx, device_types: dtx, roles: rolex, platforms: pfx, cluster_types: ctx, cluster_groups: cgx, clusters: clx, tenant_groups: tgx, tenants: tenantx, tags: tagx },
      vm,
      bare,
    };
    return out;
  })());

/** The criterion's value as a config context takes it: ids, or slugs for tags. */
const given = (criterion: string, obj: Obj) => (criterion === 'tags' ? obj.slug : obj.id);

/** A machine's config context once `check` holds on it (contexts arrive by events). */
async function contextOf(id: number, check: (cc: Obj) => boolean, query = ''): Promise<Obj> {
  let last: Obj = {};
  await eventually(
    async () => {
      const r = await vz.get(`/api/virtualization/virtual-machines/${id}/${query}`);
      last = r.body;
      return r.status === 200 && !!r.body.config_context && check(r.body.config_context);
    },
    // events from four services, on a machine running another suite beside this one
    30_000,
    () => `config context of ${id}: ${JSON.stringify(last.config_context)}`,
  ).catch(async (err: Error) => {
    throw new Error(`${err.message}\nwhat virtualization projects:\n${await projected()}`);
  });
  return last.config_context as Obj;
}

/** The projections the criteria read, as virtualization holds them (when a wait fails, what was missing). */
async function projected(): Promise<string> {
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    const out: string[] = [];
    for (const label of ['dcim.region', 'dcim.sitegroup', 'dcim.site', 'extras.configcontext']) {
      const rows = await db.query(`SELECT id, version, deleted, path, data FROM virtualization.${projectionTable(label)} ORDER BY id`);
      out.push(`${label}: ${JSON.stringify(rows.rows.map((r) => (label === 'extras.configcontext' ? { id: r.id, v: r.version, deleted: r.deleted, name: r.data.name, regions: r.data.regions } : { id: r.id, v: r.version, deleted: r.deleted, path: r.path, region: r.data.region })))}`);
    }
    return out.join('\n');
  } finally {
    await db.end();
  }
}

describe('config_context of a model that declares criteria', () => {
  test('when a context names one object of a criterion, then a machine matching it (through any tree ancestor) gets its data, and one that does not, not', async () => {
    const w = await theWorld();
    for (const c of CRITERIA) {
      await made(ex, '/api/extras/config-contexts/', { name: `hit ${c}`, data: { matched: { [c]: true } }, [c]: [given(c, w.hit[c])] });
      await made(ex, '/api/extras/config-contexts/', { name: `miss ${c}`, data: { missed: { [c]: true } }, [c]: [given(c, w.miss[c])] });
    }
    const cc = await contextOf(w.vm.id, (x) => Object.keys(x.matched ?? {}).length === CRITERIA.length);
    expect(Object.keys(cc.matched).sort()).toEqual([...CRITERIA].sort());
    expect(cc.missed).toBeUndefined();
    const bare = (await vz.get(`/api/virtualization/virtual-machines/${w.bare.id}/`)).body;
    expect(bare.config_context.matched).toBeUndefined();
    expect(bare.config_context.missed).toBeUndefined();
  });

  test('when a context names several criteria, then all must match; several objects of one criterion, then any may', async () => {
    const w = await theWorld();
    await made(ex, '/api/extras/config-contexts/', { name: 'both', data: { both: true }, sites: [w.hit.sites.id], roles: [w.hit.roles.id] });
    await made(ex, '/api/extras/config-contexts/', { name: 'half', data: { half: true }, sites: [w.hit.sites.id], roles: [w.miss.roles.id] });
    await made(ex, '/api/extras/config-contexts/', { name: 'either', data: { either: true }, sites: [w.miss.sites.id, w.hit.sites.id] });
    await made(ex, '/api/extras/config-contexts/', { name: 'global', weight: 0, data: { global: true } });
    await made(ex, '/api/extras/config-contexts/', { name: 'inactive', is_active: false, data: { inactive: true } });
    const cc = await contextOf(w.vm.id, (x) => x.both && x.either && x.global);
    expect(cc.half).toBeUndefined();
    expect(cc.inactive).toBeUndefined();
    // a context with no criteria at all matches every machine
    await contextOf(w.bare.id, (x) => x.global === true && x.inactive === undefined);
  });

  test('when contexts collide, then they merge deeply in weight then name order, an empty dict or a list replaces, and local data wins last', async () => {
    const w = await theWorld();
    const site = [w.hit.sites.id];
    await made(ex, '/api/extras/config-contexts/', { name: 'm-b', weight: 500, sites: site, data: { order: 'b', deep: { x: 1, keep: 1 }, emptied: {}, list: [3] } });
    await made(ex, '/api/extras/config-contexts/', { name: 'm-a', weight: 500, sites: site, data: { order: 'a', deep: { x: 2, a: true }, emptied: { z: 1 }, list: [1, 2], nested: { one: { two: 2 } } } });
    await made(ex, '/api/extras/config-contexts/', { name: 'm-0', weight: 2000, sites: site, data: { heavy: 'yes', deep: { y: 3 }, nested: { one: { three: 3 } } } });
    const cc = await contextOf(w.vm.id, (x) => x.heavy === 'yes' && x.list?.length === 1);
    // m-a then m-b (same weight, by name), then m-0 (heavier); then the machine's local data
    expect(cc.order).toBe('local');
    expect(cc.deep).toEqual({ x: 9, keep: 1, a: true, y: 3 });
    expect(cc.emptied).toEqual({});
    expect(cc.list).toEqual([3]);
    expect(cc.nested).toEqual({ one: { two: 2, three: 3 } });
    // without local data, the contexts' own merge shows
    const r = await vz.patch(`/api/virtualization/virtual-machines/${w.vm.id}/`, { local_context_data: null });
    expect(r.status).toBe(200);
    expect(r.body.config_context.order).toBe('b');
    expect(r.body.config_context.deep).toEqual({ x: 1, keep: 1, a: true, y: 3 });
    await vz.patch(`/api/virtualization/virtual-machines/${w.vm.id}/`, { local_context_data: { order: 'local', deep: { x: 9 } } });
  });

  test('when a context changes or goes, then the machines show it within the events lag', async () => {
    const w = await theWorld();
    const c = await made(ex, '/api/extras/config-contexts/', { name: 'changing', sites: [w.hit.sites.id], data: { changing: 1 } });
    await contextOf(w.vm.id, (x) => x.changing === 1);
    expect((await ex.patch(`/api/extras/config-contexts/${c.id}/`, { data: { changing: 2 } })).status).toBe(200);
    await contextOf(w.vm.id, (x) => x.changing === 2);
    expect((await ex.patch(`/api/extras/config-contexts/${c.id}/`, { sites: [w.miss.sites.id] })).status).toBe(200);
    await contextOf(w.vm.id, (x) => x.changing === undefined);
    expect((await ex.patch(`/api/extras/config-contexts/${c.id}/`, { sites: [] })).status).toBe(200);
    await contextOf(w.bare.id, (x) => x.changing === 2);
    expect((await ex.delete(`/api/extras/config-contexts/${c.id}/`)).status).toBe(204);
    await contextOf(w.bare.id, (x) => x.changing === undefined);
  });

  test('when the only object a context names is deleted (in dcim, or a tag in extras), then the context loses it, with a change of its own, and matches every machine', async () => {
    const w = await theWorld();
    const dc = stack.client('dcim');
    const region = await made(dc, '/api/dcim/regions/', { name: 'Doomed', slug: 'doomed' });
    const tag = await made(ex, '/api/extras/tags/', { name: 'Doomed tag', slug: 'doomed-tag' });
    const byRegion = await made(ex, '/api/extras/config-contexts/', { name: 'doomed region', regions: [region.id], data: { doomed_region: true } });
    const byTag = await made(ex, '/api/extras/config-contexts/', { name: 'doomed tag', tags: [tag.slug], data: { doomed_tag: true } });
    await contextOf(w.bare.id, (x) => x.global === true);
    expect((await vz.get(`/api/virtualization/virtual-machines/${w.bare.id}/`)).body.config_context.doomed_region).toBeUndefined();
    expect((await dc.delete(`/api/dcim/regions/${region.id}/`)).status).toBe(204);
    expect((await ex.delete(`/api/extras/tags/${tag.id}/`)).status).toBe(204);
    await contextOf(w.bare.id, (x) => x.doomed_region === true && x.doomed_tag === true);
    for (const c of [byRegion, byTag]) {
      const now = (await ex.get(`/api/extras/config-contexts/${c.id}/`)).body;
      expect([now.regions, now.tags]).toEqual([[], []]);
      let seen: Obj[] = [];
      const actions = async () => {
        seen = (await ex.get(`/api/extras/object-changes/?changed_object_type=extras.configcontext&changed_object_id=${c.id}`)).body.results as Obj[];
        return seen.map((r) => r.action.value).sort();
      };
      // what the log held, should it never come (seen once in a loaded CI run: the next time says which of the two, and what it had)
      const held = () => `the ${c.name} context's create and update in the change log; it held ${JSON.stringify(seen.map((r) => [r.action.value, r.user_name, r.request_id, r.time]))}`;
      await eventually(async () => (await actions()).length >= 2, 15_000, held);
      expect(await actions()).toEqual(['create', 'update']);
    }
  });

  test('when the read is brief or excludes config_context, then the key is left out; otherwise it follows custom_fields', async () => {
    const w = await theWorld();
    const path = `/api/virtualization/virtual-machines/`;
    const detail = (await vz.get(`${path}${w.vm.id}/`)).body;
    const keys = Object.keys(detail);
    expect(keys[keys.indexOf('custom_fields') + 1]).toBe('config_context');
    for (const q of ['exclude=config_context', 'exclude=foo,config_context', 'brief=1']) {
      const one = await vz.get(`${path}${w.vm.id}/?${q}`);
      expect(one.status).toBe(200);
      expect(one.body).not.toHaveProperty('config_context');
      const list = await vz.get(`${path}?${q}`);
      expect(list.body.results.length).toBeGreaterThan(0);
      for (const o of list.body.results) expect(o).not.toHaveProperty('config_context');
    }
    // other exclude values are ignored
    expect((await vz.get(`${path}${w.vm.id}/?exclude=tags`)).body).toHaveProperty('config_context');
    // read options: omit= leaves it out too; fields= shows it alone
    expect((await vz.get(`${path}?omit=config_context`)).body.results[0]).not.toHaveProperty('config_context');
    const only = (await vz.get(`${path}${w.vm.id}/?fields=id,config_context`)).body;
    expect(Object.keys(only)).toEqual(['id', 'config_context']);
    expect(only.config_context).toEqual(detail.config_context);
    // write answers: with it, and without it when excluded
    const patched = await vz.patch(`${path}${w.vm.id}/`, { name: 'vm-in' });
    expect(patched.body.config_context).toEqual(detail.config_context);
    const excluded = await vz.patch(`${path}${w.vm.id}/?exclude=config_context`, { name: 'vm-in' });
    expect(excluded.status).toBe(200);
    expect(excluded.body).not.toHaveProperty('config_context');
  });

  test('when a page holds 1, 50 or all machines, then rendering their config contexts costs the same statements', async () => {
    const w = await theWorld();
    const body = (i: number) => ({
      name: `many-${i}`,
      site: i % 2 ? w.hit.sites.id : w.miss.sites.id,
      role: i % 3 ? w.hit.roles.id : null,
      cluster: w.hit.clusters.id,
      tenant: w.hit.tenants.id,
      tags: i % 2 ? [w.hit.tags.id] : [],
      local_context_data: i % 4 ? { i } : null,
    });
    await made(
      vz,
      '/api/virtualization/virtual-machines/',
      Array.from({ length: 120 }, (_, i) => body(i)),
    );
    const counts: number[] = [];
    for (const limit of [1, 50, 1000]) {
      const r = await vz.get(`/api/virtualization/virtual-machines/?name__isw=many-&limit=${limit}`);
      expect(r.status).toBe(200);
      expect(r.body.results.length).toBe(Math.min(limit, 120));
      counts.push(Number(r.headers.get('x-query-count')));
    }
    const excluded = Number((await vz.get(`/api/virtualization/virtual-machines/?name__isw=many-&limit=1000&exclude=config_context`)).headers.get('x-query-count'));
    expect(counts[2]).toBe(counts[1]);
    expect(counts[0]).toBeLessThanOrEqual(counts[1]);
    // the whole page's contexts are one statement
    expect(counts[2]).toBe(excluded + 1);
    const all = (await vz.get(`/api/virtualization/virtual-machines/?name__isw=many-&limit=1000`)).body.results as Obj[];
    const one = all.find((o) => o.name === 'many-1')!;
    expect(one.config_context.i).toBe(1);
    expect(one.config_context.matched.sites).toBe(true);
  });

  test('when OPTIONS and the OpenAPI document describe the machine, then config_context is read-only', async () => {
    const options = await vz.request('OPTIONS', '/api/virtualization/virtual-machines/');
    expect(options.body.actions.POST.config_context).toEqual({ type: 'field', required: false, read_only: true, label: 'Config context' });
    const post = Object.keys(options.body.actions.POST);
    expect(post[post.indexOf('custom_fields') + 1]).toBe('config_context');
    const doc = await stack.serviceClient('virtualization').get('/internal/openapi');
    const schema = doc.body.components.schemas.VirtualMachine;
    expect(schema.properties.config_context).toEqual({ type: 'object', additionalProperties: true, readOnly: true });
    expect(schema.required).not.toContain('config_context');
    expect(doc.body.components.schemas.VirtualMachineRequest.properties).not.toHaveProperty('config_context');
    // a write cannot set it
    const r = await vz.post('/api/virtualization/virtual-machines/', { name: 'set-it', config_context: { forced: true } });
    expect(r.status).toBe(201);
    expect(r.body.config_context.forced).toBeUndefined();
  });
});

describe('config contexts in extras', () => {
  test('when written, then criteria read as minimal objects, tags as slugs, and bad values get NetBox texts', async () => {
    const w = await theWorld();
    const c = await made(ex, '/api/extras/config-contexts/', { name: 'shape', data: { a: 1 }, regions: [w.hit.regions.id], tags: [w.hit.tags.slug] });
    expect(c.tags).toEqual([w.hit.tags.slug]);
    expect(c.regions.map((r: Obj) => r.id)).toEqual([w.hit.regions.id]);
    expect(c.weight).toBe(1000);
    expect(c.is_active).toBe(true);
    // NetBox's data_path is a blank CharField: '' until a data file is named
    expect([c.data_source, c.data_path, c.data_file, c.data_synced, c.auto_sync_enabled]).toEqual([null, '', null, null, false]);
    const keys = Object.keys(c);
    expect(keys.slice(0, 8)).toEqual(['id', 'url', 'display', 'name', 'weight', 'description', 'is_active', 'regions']);
    expect(keys.slice(-3)).toEqual(['data', 'created', 'last_updated']);
    expect((await ex.post('/api/extras/config-contexts/', { name: 'x', data: [1] })).body).toEqual({ data: ['JSON data must be in object form. Example: {"foo": 123}'] });
    expect((await ex.post('/api/extras/config-contexts/', { name: 'x', data: {}, tags: ['nope'] })).body).toEqual({ tags: ['Object with slug=nope does not exist.'] });
    expect((await ex.post('/api/extras/config-contexts/', { name: 'x', data: {}, sites: [{ slug: 's1' }] })).body).toEqual({ sites: ['Incorrect type. Expected pk value, received dict.'] });
    // the change event's snapshot (what referrers project) holds the criteria as ids
    const log = `/api/extras/object-changes/?changed_object_type=extras.configcontext&changed_object_id=${c.id}`;
    await eventually(async () => (await ex.get(log)).body.count > 0);
    const change = (await ex.get(log)).body.results[0];
    expect(change.postchange_data.regions).toEqual([w.hit.regions.id]);
    expect(change.postchange_data.tags).toEqual([w.hit.tags.id]);
  });

  test('when filtered by criteria, then ids and slugs find the contexts that name them', async () => {
    const w = await theWorld();
    const c = await made(ex, '/api/extras/config-contexts/', { name: 'filtered', data: {}, site_groups: [w.hit.site_groups.id], platforms: [w.hit.platforms.id], tags: ['tag-a'] });
    for (const q of [`site_group_id=${w.hit.site_groups.id}`, 'site_group=g1', 'platform=pf', `platform_id=${w.hit.platforms.id}`, 'tag=tag-a', `tag_id=${w.hit.tags.id}`]) {
      const r = await ex.get(`/api/extras/config-contexts/?${q}&name=filtered`);
      expect([q, r.body.results?.map((o: Obj) => o.id)]).toEqual([q, [c.id]]);
    }
    expect((await ex.get('/api/extras/config-contexts/?site_group=gx&name=filtered')).body.count).toBe(0);
  });
});

describe('render-config', () => {
  test('when a machine has a template, then it renders with its config context, the request body over it and the machine itself', async () => {
    const w = await theWorld();
    const code = [
      'hostname {{ virtualmachine.name }}',
      '{% for s in ntp %}ntp {{ s }}\n{% endfor %}order={{ order }} site={{ virtualmachine.site.name | lower }} extra={{ extra | default("none") }}',
    ].join('\n');
    const tpl = await made(ex, '/api/extras/config-templates/', { name: 'vm template', template_code: code });
    await made(ex, '/api/extras/config-contexts/', { name: 'ntp', sites: [w.hit.sites.id], data: { ntp: ['10.0.0.1', '10.0.0.2'] } });
    const vm = await made(vz, '/api/virtualization/virtual-machines/', { name: 'rendered', site: w.hit.sites.id, config_template: tpl.id, local_context_data: { order: 'local' } });
    const path = `/api/virtualization/virtual-machines/${vm.id}/render-config/`;
    let r = await vz.post(path, {});
    await eventually(async () => (r = await vz.post(path, {})).status === 200 && String(r.body.content).includes('ntp 10.0.0.2'));
    expect(r.body).toEqual({
      configtemplate: { id: tpl.id, url: expect.stringMatching(new RegExp(`/api/extras/config-templates/${tpl.id}/$`)), display: 'vm template', name: 'vm template' },
      content: 'hostname rendered\nntp 10.0.0.1\nntp 10.0.0.2\norder=local site=s1 extra=none',
    });
    const over = await vz.post(path, { order: 'body', extra: 'given' });
    expect(over.body.content).toBe('hostname rendered\nntp 10.0.0.1\nntp 10.0.0.2\norder=body site=s1 extra=given');
    const text = await vz.post(path, {}, { headers: { accept: 'text/plain' } });
    expect(text.status).toBe(200);
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(text.text).toBe('hostname rendered\nntp 10.0.0.1\nntp 10.0.0.2\norder=local site=s1 extra=none');
  });

  test('when a machine has no template of its own, then the cluster template is used; with none at all, a 400; with a broken one, a 500 naming the line; a viewer or a read-only token is refused', async () => {
    const w = await theWorld();
    const tpl = await made(ex, '/api/extras/config-templates/', { name: 'cluster template', template_code: 'cluster {{ virtualmachine.cluster.name }}' });
    const type = await made(vz, '/api/virtualization/cluster-types/', { name: 'CT render', slug: 'ct-render' });
    const cl = await made(vz, '/api/virtualization/clusters/', { name: 'CL render', type: type.id, config_template: tpl.id });
    const vm = await made(vz, '/api/virtualization/virtual-machines/', { name: 'by cluster', cluster: cl.id });
    const r = await vz.post(`/api/virtualization/virtual-machines/${vm.id}/render-config/`, {});
    expect([r.status, r.body.content, r.body.configtemplate?.id]).toEqual([200, 'cluster CL render', tpl.id]);
    const none = await vz.post(`/api/virtualization/virtual-machines/${w.bare.id}/render-config/`, {});
    expect([none.status, none.body]).toEqual([400, { error: 'No config template found for this virtual machine.' }]);
    const broken = await made(ex, '/api/extras/config-templates/', { name: 'broken', template_code: 'fine\n{{ x | frobnicate }}' });
    const bad = await made(vz, '/api/virtualization/virtual-machines/', { name: 'broken', config_template: broken.id });
    const err = await vz.post(`/api/virtualization/virtual-machines/${bad.id}/render-config/`, {});
    expect(err.status).toBe(500);
    expect(err.body.detail).toMatch(/^An error occurred while rendering the template \(line 2\): .*frobnicate/);
    expect((await vz.post('/api/virtualization/virtual-machines/999999/render-config/', {})).status).toBe(404);
    // NetBox 3.x asks a POST's add permission (netbox#14634): a viewer is refused, as is a read-only token
    const user = { id: 7, username: 'viewer', is_superuser: false, is_staff: false, is_active: true };
    const viewer = vz.withIdentity({ user, token: { id: 7, write_enabled: true }, permissions: [{ object_types: ['virtualization.virtualmachine'], actions: ['view'], constraints: null }] });
    expect((await viewer.post(`/api/virtualization/virtual-machines/${vm.id}/render-config/`, {})).status).toBe(403);
    const adder = vz.withIdentity({ user, token: { id: 7, write_enabled: true }, permissions: [{ object_types: ['virtualization.virtualmachine'], actions: ['view', 'add'], constraints: null }] });
    expect((await adder.post(`/api/virtualization/virtual-machines/${vm.id}/render-config/`, {})).status).toBe(200);
    const readOnly = vz.withIdentity({ user, token: { id: 7, write_enabled: false }, permissions: [{ object_types: ['virtualization.virtualmachine'], actions: ['view', 'add'], constraints: null }] });
    expect((await readOnly.post(`/api/virtualization/virtual-machines/${vm.id}/render-config/`, {})).status).toBe(403);
    expect((await vz.post(`/api/virtualization/virtual-machines/${vm.id}/render-config/`, [1])).status).toBe(400);
  });
});

describe('config template render', () => {
  test('when a template is rendered with a posted context, then the answer is NetBox shape, text on request, and a broken template a 500 naming the line', async () => {
    const tpl = await made(ex, '/api/extras/config-templates/', {
      name: 'standalone',
      template_code: '{% for i in items %}\n- {{ i | upper }}\n{% endfor %}\n',
      environment_params: { trim_blocks: true },
    });
    const r = await ex.post(`/api/extras/config-templates/${tpl.id}/render/`, { items: ['a', 'b'] });
    expect(r.status).toBe(200);
    expect(r.body.content).toBe('- A\n- B\n');
    expect(r.body.configtemplate).toMatchObject({ id: tpl.id, display: 'standalone', name: 'standalone' });
    const text = await ex.post(`/api/extras/config-templates/${tpl.id}/render/`, { items: ['c'] }, { headers: { accept: 'text/plain' } });
    expect([text.status, text.text]).toEqual([200, '- C\n']);
    const broken = await made(ex, '/api/extras/config-templates/', { name: 'broken standalone', template_code: '{% if x %}\nno end' });
    const err = await ex.post(`/api/extras/config-templates/${broken.id}/render/`, {});
    expect(err.status).toBe(500);
    expect(err.body.detail).toMatch(/^An error occurred while rendering the template \(line \d+\): /);
    expect((await ex.post('/api/extras/config-templates/999999/render/', {})).status).toBe(404);
  });
});
