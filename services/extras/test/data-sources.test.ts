import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pg from 'pg';
import { bootStack, eventually, scrapeMetrics, type Client, type Stack } from '@inventory/testkit';
import type { RestService } from '@inventory/rest';
import { createService as extras } from '@inventory/extras';
import { bootstrapAdmin, createService as users } from '@inventory/users';
import { checkParameters, checkSourceUrl, fnmatch, ignored } from '../src/data/policy';
import { dataSourceSettings } from '../src/config';

/**
 * Data sources, data files and jobs (NetBox 3.7's core app, served by
 * extras; decision 029): a git repository made here and cloned through
 * file://, local folders below the allowed root (and links out of it), the
 * settings' refusals, a failing sync, and the objects that copy a data file
 * (config contexts, config templates, export templates) with their sync.
 */
type Obj = Record<string, any>;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'data-sources-test-'));
const root = path.join(tmp, 'allowed');
const outside = path.join(tmp, 'outside');
const repo = path.join(tmp, 'repo');

const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd: repo, stdio: 'pipe' });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const TEMPLATE = 'hostname {{ name }}\n';
const CONTEXT = 'ntp:\n  - 192.0.2.1\n  - 192.0.2.2\nsyslog: true\n';

let stack: Stack;
let api: Client;
let db: pg.Client;

beforeAll(async () => {
  fs.mkdirSync(path.join(root, 'site', 'sub'), { recursive: true });
  fs.mkdirSync(outside, { recursive: true });
  fs.writeFileSync(path.join(root, 'site', 'inside.txt'), 'inside\n');
  fs.writeFileSync(path.join(root, 'site', 'sub', 'deeper.txt'), 'deeper\n');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret\n');
  // links out of the root (a file, a folder) are not followed; one inside it is read
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'site', 'secret-link.txt'));
  fs.symlinkSync(outside, path.join(root, 'site', 'outside-dir'));
  fs.symlinkSync(path.join(root, 'site', 'inside.txt'), path.join(root, 'site', 'inside-link.txt'));
  // a source named below the root that is a link out of it
  fs.symlinkSync(outside, path.join(root, 'escape'));

  fs.mkdirSync(path.join(repo, 'configs'), { recursive: true });
  git('init', '--quiet');
  fs.writeFileSync(path.join(repo, 'template.j2'), TEMPLATE);
  fs.writeFileSync(path.join(repo, 'configs', 'context.yaml'), CONTEXT);
  fs.writeFileSync(path.join(repo, 'build.log'), 'ignored by a rule\n');
  git('add', '.');
  git('commit', '--quiet', '-m', 'first');

  // users: a job names its user (id 1, the test identity's: a superuser named admin)
  let usersService: RestService | undefined;
  stack = await bootStack(
    {
      extras: (c) => extras({ ...c, DATA_SOURCE_LOCAL_ROOTS: root, DATA_SOURCE_GIT_SCHEMES: 'file,https', DATA_SOURCE_MAX_FILE_SIZE: 4096 } as never),
      users: (c) => (usersService = users(c)),
    },
    {},
    { template: true },
  );
  await bootstrapAdmin(usersService!, { SUPERUSER_NAME: 'admin', SUPERUSER_PASSWORD: 'admin-password-1', SUPERUSER_API_TOKEN: '0123456789abcdef0123456789abcdef01234567' });
  api = stack.client('extras');
  db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Syncs the source and waits for its job to end; the job. */
async function sync(id: number): Promise<Obj> {
  const before = (await api.get(`/api/core/jobs/?object_id=${id}&limit=0`)).body.count as number;
  const r = await api.post(`/api/core/data-sources/${id}/sync/`);
  expect(r.status).toBe(200);
  // NetBox answers queued; a fast worker may already have ended it
  expect(['queued', 'syncing', 'completed', 'failed']).toContain(r.body.status.value);
  let job: Obj | undefined;
  await eventually(async () => {
    const jobs = (await api.get(`/api/core/jobs/?object_id=${id}&ordering=-id&limit=0`)).body;
    job = jobs.count > before ? jobs.results[0] : undefined;
    return !!job && ['completed', 'errored'].includes(job.status.value);
  }, 30_000, 'the sync job to end');
  return job!;
}

async function source(body: Obj): Promise<Obj> {
  const r = await api.post('/api/core/data-sources/', body);
  expect([r.status, r.body]).toEqual([201, expect.anything()]);
  return r.body;
}

const filesOf = async (id: number) => (await api.get(`/api/core/data-files/?source_id=${id}&ordering=path`)).body.results as Obj[];

describe('settings and rules', () => {
  const settings = dataSourceSettings({ DATA_SOURCE_LOCAL_ROOTS: '/srv/data,/opt/x', DATA_SOURCE_GIT_SCHEMES: 'https' } as never);

  test('when no local root is set, then a local source is refused naming the setting', () => {
    expect(checkSourceUrl('local', '/srv/data/a', dataSourceSettings({} as never))).toMatch(/DATA_SOURCE_LOCAL_ROOTS/);
  });

  test('when a local path is below a root, then it is allowed; outside or escaping with .., then refused', () => {
    expect(checkSourceUrl('local', 'file:///srv/data/a', settings)).toBeNull();
    expect(checkSourceUrl('local', '/opt/x', settings)).toBeNull();
    expect(checkSourceUrl('local', '/srv/data/../etc', settings)).toMatch(/not below/);
    expect(checkSourceUrl('local', '/srv/database', settings)).toMatch(/not below/);
    expect(checkSourceUrl('local', 'https://example.com/x', settings)).toMatch(/file:\/\//);
  });

  test('when a git URL has a scheme the setting does not list, then it is refused', () => {
    expect(checkSourceUrl('git', 'https://example.com/r.git', settings)).toBeNull();
    expect(checkSourceUrl('git', 'ext::sh -c touch% /tmp/pwned', settings)).toMatch(/DATA_SOURCE_GIT_SCHEMES/);
    expect(checkSourceUrl('git', 'file:///srv/r', settings)).toMatch(/"file" is not allowed/);
  });

  test('when parameters are given, then only strings among branch, username and password pass (no option as a branch)', () => {
    expect(checkParameters('git', { branch: 'main', username: 'u', password: 'p' })).toBeNull();
    expect(checkParameters('git', { branch: '--upload-pack=x' })).toMatch(/branch/);
    expect(checkParameters('git', { token: 'x' })).toMatch(/Unknown parameter/);
    expect(checkParameters('local', { branch: 'main' })).toMatch(/no parameters/);
  });

  test('when settings are invalid, then the service does not start', () => {
    expect(() => dataSourceSettings({ DATA_SOURCE_LOCAL_ROOTS: 'relative/dir' } as never)).toThrow(/absolute/);
    expect(() => dataSourceSettings({ DATA_SOURCE_GIT_SCHEMES: 'ext' } as never)).toThrow(/DATA_SOURCE_GIT_SCHEMES/);
  });

  test('when ignore rules are fnmatch patterns, then they match names as Python does', () => {
    expect(fnmatch('build.log', '*.log')).toBe(true);
    expect(fnmatch('a.txt', '?.txt')).toBe(true);
    expect(fnmatch('b.txt', '[!b].txt')).toBe(false);
    expect(fnmatch('c.txt', '[a-c].txt')).toBe(true);
    expect(fnmatch('x.LOG', '*.log')).toBe(false);
    expect(ignored('.hidden', '')).toBe(true);
    expect(ignored('keep.txt', '*.log\n\n*.tmp')).toBe(false);
  });
});

describe('git sources', () => {
  let gitSource: Obj;

  test('when /api/core/ is read, then it lists data files, data sources and jobs', async () => {
    const r = await api.get('/api/core/');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['data-files', 'data-sources', 'jobs']);
  });

  test('when a repository is synced through file://, then its job completes and its files are read, the ignored one left out', async () => {
    gitSource = await source({ name: 'repo', type: 'git', source_url: `file://${repo}`, ignore_rules: '*.log', parameters: { branch: 'main' } });
    expect(gitSource.status).toEqual({ value: 'new', label: 'New' });
    expect(gitSource.file_count).toBe(0);
    const job = await sync(gitSource.id);
    expect(job).toMatchObject({ object_type: 'core.datasource', object_id: gitSource.id, status: { value: 'completed', label: 'Completed' }, error: '' });
    expect(job.started).toBeTruthy();
    expect(job.completed).toBeTruthy();
    expect(job.job_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(job.user).toMatchObject({ id: 1, username: 'admin' });
    expect((await api.get('/api/core/jobs/?user=1')).body.count).toBeGreaterThan(0);
    expect((await api.get('/api/core/jobs/?user__n=1')).body.count).toBe(0);
    const files = await filesOf(gitSource.id);
    expect(files.map((f) => [f.path, f.size, f.hash])).toEqual([
      ['configs/context.yaml', Buffer.byteLength(CONTEXT), sha256(CONTEXT)],
      ['template.j2', Buffer.byteLength(TEMPLATE), sha256(TEMPLATE)],
    ]);
    expect(files[0].source).toMatchObject({ id: gitSource.id, name: 'repo' });
    expect(files[0]).not.toHaveProperty('data');
    const fresh = (await api.get(`/api/core/data-sources/${gitSource.id}/`)).body;
    expect(fresh.status.value).toBe('completed');
    expect(fresh.file_count).toBe(2);
    expect(fresh.last_synced).toBeTruthy();
    // the filters NetBox lists
    expect((await api.get(`/api/core/data-files/?source=repo&path__ic=context`)).body.count).toBe(1);
    expect((await api.get(`/api/core/data-files/?hash=${sha256(TEMPLATE)}`)).body.results[0].path).toBe('template.j2');
    expect((await api.get(`/api/core/data-files/?size__gt=1000`)).body.count).toBe(0);
    expect((await api.get(`/api/core/data-sources/?status=completed&type=git`)).body.results.map((s: Obj) => s.id)).toContain(gitSource.id);
    expect((await api.get(`/api/core/jobs/?status=completed&object_type=${(await api.get('/api/extras/content-types/?app_label=core&model=datasource')).body.results[0].id}`)).body.count).toBeGreaterThan(0);
    expect((await api.get(`/api/core/jobs/?completed__before=2000-01-01T00:00:00Z`)).body.count).toBe(0);
  });

  test('when a config context, a config template and an export template name a data file, then they take its content; sync copies it again', async () => {
    const files = await filesOf(gitSource.id);
    const yamlFile = files.find((f) => f.path === 'configs/context.yaml')!;
    const templateFile = files.find((f) => f.path === 'template.j2')!;

    const context = await api.post('/api/extras/config-contexts/', { name: 'from git', data: {}, data_file: yamlFile.id });
    expect(context.status).toBe(201);
    expect(context.body.data).toEqual({ ntp: ['192.0.2.1', '192.0.2.2'], syslog: true });
    expect(context.body.data_source).toMatchObject({ id: gitSource.id, name: 'repo' });
    expect(context.body.data_file).toMatchObject({ id: yamlFile.id, path: 'configs/context.yaml' });
    expect(context.body.data_path).toBe('configs/context.yaml');
    expect(context.body.data_synced).toBeTruthy();

    const template = await api.post('/api/extras/config-templates/', { name: 'from git', template_code: 'placeholder', data_file: templateFile.id, auto_sync_enabled: true });
    expect(template.status).toBe(201);
    expect(template.body.auto_sync_enabled).toBe(true);
    expect(template.body.template_code).toBe(TEMPLATE);
    const rendered = await api.post(`/api/extras/config-templates/${template.body.id}/render/`, { name: 'router-1' }, { headers: { accept: 'text/plain' } });
    // Jinja drops the final newline (keep_trailing_newline is off, as in NetBox)
    expect(rendered.text).toBe('hostname router-1');

    const exported = await api.post('/api/extras/export-templates/', { name: 'from git', content_types: ['extras.tag'], template_code: 'x', data_file: templateFile.id });
    expect(exported.status).toBe(201);
    expect(exported.body.template_code).toBe(TEMPLATE);
    expect((await api.get(`/api/extras/export-templates/?data_file_id=${templateFile.id}`)).body.count).toBe(1);
    expect((await api.get(`/api/extras/config-contexts/?data_source_id=${gitSource.id}`)).body.count).toBe(1);

    // a new commit, a new sync of the source: the file changes; the objects keep their copy until they are synced
    fs.writeFileSync(path.join(repo, 'configs', 'context.yaml'), 'ntp: []\n');
    fs.writeFileSync(path.join(repo, 'template.j2'), 'v2 {{ name }}');
    git('commit', '--quiet', '-am', 'second');
    const second = await sync(gitSource.id);
    expect(second.status.value).toBe('completed');
    // the config template syncs itself with the source (auto_sync_enabled); the others wait for their sync
    expect(second.data).toEqual({ created: 0, updated: 2, deleted: 0, auto_synced: 1, auto_sync_failed: 0 });
    expect((await api.get(`/api/extras/config-templates/${template.body.id}/`)).body.template_code).toBe('v2 {{ name }}');
    const changed = await filesOf(gitSource.id);
    expect(changed.find((f) => f.path === 'configs/context.yaml')).toMatchObject({ id: yamlFile.id, hash: sha256('ntp: []\n') });
    expect((await api.get(`/api/extras/config-contexts/${context.body.id}/`)).body.data.syslog).toBe(true);

    const synced = await api.post(`/api/extras/config-contexts/${context.body.id}/sync/`);
    expect(synced.status).toBe(200);
    expect(synced.body.data).toEqual({ ntp: [] });
    expect(synced.body.data_synced > context.body.data_synced).toBe(true);
    const syncedTemplate = await api.post(`/api/extras/config-templates/${template.body.id}/sync/`);
    expect(syncedTemplate.body.template_code).toBe('v2 {{ name }}');
    expect((await api.post(`/api/extras/export-templates/${exported.body.id}/sync/`)).body.template_code).toBe('v2 {{ name }}');
    // no data file, no auto sync
    const unlinked = await api.patch(`/api/extras/config-templates/${template.body.id}/`, { data_file: null });
    expect(unlinked.body).toMatchObject({ data_file: null, data_path: '', data_synced: null, auto_sync_enabled: false, template_code: 'v2 {{ name }}' });
    expect((await api.patch(`/api/extras/config-templates/${template.body.id}/`, { auto_sync_enabled: true })).body.auto_sync_enabled).toBe(false);
    // the sync is a change of the object: the change log shows it
    await eventually(async () => (await api.get(`/api/extras/object-changes/?changed_object_type=extras.configcontext&changed_object_id=${context.body.id}&action=update`)).body.count === 1);

    // an object without a data file is answered as it is; a data source in use cannot go
    const plain = await api.post('/api/extras/config-contexts/', { name: 'plain', data: { a: 1 } });
    expect((await api.post(`/api/extras/config-contexts/${plain.body.id}/sync/`)).body).toMatchObject({ data: { a: 1 }, data_file: null, data_synced: null, data_path: '' });
    expect((await api.delete(`/api/core/data-sources/${gitSource.id}/`)).status).toBe(409);
    // the synced-data filters: by id, `null` for none, `__n` keeping the objects that name none
    const ids = async (q: string) => (await api.get(`/api/extras/config-contexts/?id=${context.body.id}&id=${plain.body.id}&${q}`)).body.results.map((o: Obj) => o.id);
    expect(await ids(`data_source_id=${gitSource.id}`)).toEqual([context.body.id]);
    expect(await ids(`data_source_id__n=${gitSource.id}`)).toEqual([plain.body.id]);
    expect(await ids(`data_file_id=null`)).toEqual([plain.body.id]);
    expect(await ids(`data_file_id=null&data_file_id=${yamlFile.id}`)).toHaveLength(2);
    expect(await ids(`data_synced__empty=false`)).toEqual([context.body.id]);
    expect((await api.get('/api/extras/config-contexts/?data_file_id=999999')).body).toEqual({ data_file_id: ['Select a valid choice. 999999 is not one of the available choices.'] });
  });

  test('when a file is not valid YAML for a config context, then naming it is a 400', async () => {
    const templateFile = (await filesOf(gitSource.id)).find((f) => f.path === 'template.j2')!;
    fs.writeFileSync(path.join(repo, 'configs', 'context.yaml'), '- a list\n');
    git('commit', '--quiet', '-am', 'third');
    await sync(gitSource.id);
    const listFile = (await filesOf(gitSource.id)).find((f) => f.path === 'configs/context.yaml')!;
    const r = await api.post('/api/extras/config-contexts/', { name: 'list', data: {}, data_file: listFile.id });
    expect(r.status).toBe(400);
    expect(r.body.data_file[0]).toMatch(/object form/);
    expect((await api.post('/api/extras/config-contexts/', { name: 'bad', data: {}, data_file: 999999 })).status).toBe(400);
    expect(templateFile).toBeDefined();
  });

  test('when a git URL has a scheme the settings do not allow, then creating it is a 400 naming the setting', async () => {
    const r = await api.post('/api/core/data-sources/', { name: 'ssh', type: 'git', source_url: 'ssh://git@example.com/repo.git' });
    expect(r.status).toBe(400);
    expect(r.body.source_url[0]).toMatch(/DATA_SOURCE_GIT_SCHEMES/);
    expect((await api.post('/api/core/data-sources/', { name: 's3', type: 'amazon-s3', source_url: 'https://s3.amazonaws.com/b' })).status).toBe(400);
  });

  test('when a sync fails, then its job is errored with the error and the source failed', async () => {
    const broken = await source({ name: 'broken', type: 'git', source_url: `file://${path.join(tmp, 'no-such-repo')}` });
    const job = await sync(broken.id);
    expect(job.status.value).toBe('errored');
    expect(job.error).toMatch(/Fetching remote data failed/);
    expect(job.completed).toBeTruthy();
    expect((await api.get(`/api/core/data-sources/${broken.id}/`)).body.status.value).toBe('failed');
    // a failed source may be synced again; its jobs go with it (NetBox's JobsMixin)
    expect((await api.post(`/api/core/data-sources/${broken.id}/sync/`)).status).toBe(200);
    await eventually(async () => (await api.get(`/api/core/data-sources/${broken.id}/`)).body.status.value === 'failed');
    expect((await api.get(`/api/core/jobs/?object_id=${broken.id}`)).body.count).toBe(2);
    expect((await api.delete(`/api/core/data-sources/${broken.id}/`)).status).toBe(204);
    expect((await api.get(`/api/core/jobs/?object_id=${broken.id}`)).body.count).toBe(0);
  });

  test('when a password is given, then it is never shown, and giving the censored value back keeps it', async () => {
    const s = await source({ name: 'private', type: 'git', source_url: 'https://example.com/private.git', parameters: { username: 'me', password: 's3cret' } });
    expect(s.parameters).toEqual({ username: 'me', password: '********' });
    const put = await api.patch(`/api/core/data-sources/${s.id}/`, { parameters: s.parameters, description: 'same password' });
    expect(put.status).toBe(200);
    const { rows } = await db.query('SELECT parameters FROM extras.data_source WHERE id = $1', [s.id]);
    expect(rows[0].parameters.password).toBe('s3cret');
    expect(JSON.stringify((await api.get(`/api/core/data-sources/?id=${s.id}`)).body)).not.toContain('s3cret');
    // neither the events (the outbox) nor the change log keep it
    const { rows: events } = await db.query(`SELECT data, snapshots FROM extras._outbox WHERE model = 'core.datasource' AND object_id = $1`, [s.id]);
    expect(events.length).toBe(2);
    expect(JSON.stringify(events)).not.toContain('s3cret');
    expect(events[1].snapshots.postchange.parameters.password).toBe('********');
    await eventually(async () => (await api.get(`/api/extras/object-changes/?changed_object_type=core.datasource&changed_object_id=${s.id}`)).body.count === 2);
    expect(JSON.stringify((await api.get(`/api/extras/object-changes/?changed_object_type=core.datasource&changed_object_id=${s.id}`)).body)).not.toContain('s3cret');
    // nor may the URL carry one
    const inUrl = await api.post('/api/core/data-sources/', { name: 'in url', type: 'git', source_url: 'https://me:s3cret@example.com/r.git' });
    expect(inUrl.status).toBe(400);
    expect(inUrl.body.source_url[0]).toMatch(/password/);
  });
});

describe('local sources', () => {
  test('when a local folder below the root is synced, then its files and the link inside it are read; links out of it are not followed', async () => {
    const s = await source({ name: 'local', type: 'local', source_url: `file://${path.join(root, 'site')}` });
    const job = await sync(s.id);
    expect([job.status.value, job.error]).toEqual(['completed', '']);
    expect((await filesOf(s.id)).map((f) => f.path)).toEqual(['inside-link.txt', 'inside.txt', 'sub/deeper.txt']);
  });

  test('when a local source is outside the allowed root, then creating it is a 400 naming the setting', async () => {
    const r = await api.post('/api/core/data-sources/', { name: 'outside', type: 'local', source_url: outside });
    expect(r.status).toBe(400);
    expect(r.body.source_url[0]).toMatch(/DATA_SOURCE_LOCAL_ROOTS/);
    const dots = await api.post('/api/core/data-sources/', { name: 'dots', type: 'local', source_url: `${root}/../outside` });
    expect(dots.status).toBe(400);
  });

  test('when a local source below the root is a link out of it, then its sync fails and nothing is read', async () => {
    const s = await source({ name: 'escape', type: 'local', source_url: path.join(root, 'escape') });
    const job = await sync(s.id);
    expect(job.status.value).toBe('errored');
    expect(job.error).toMatch(/not below a folder allowed by DATA_SOURCE_LOCAL_ROOTS/);
    expect(await filesOf(s.id)).toEqual([]);
  });

  test('when a file is larger than DATA_SOURCE_MAX_FILE_SIZE, then the sync fails naming it', async () => {
    fs.mkdirSync(path.join(root, 'big'));
    fs.writeFileSync(path.join(root, 'big', 'large.bin'), Buffer.alloc(5000));
    const s = await source({ name: 'big', type: 'local', source_url: path.join(root, 'big') });
    const job = await sync(s.id);
    expect(job.status.value).toBe('errored');
    expect(job.error).toMatch(/large\.bin is larger than 4096 bytes/);
  });

  test('when a disabled source is synced, then it is a 400', async () => {
    const s = await source({ name: 'disabled', type: 'local', source_url: path.join(root, 'site'), enabled: false });
    expect((await api.post(`/api/core/data-sources/${s.id}/sync/`)).status).toBe(400);
  });
});

describe('data files and jobs (read-only)', () => {
  const when = '2020-01-01T00:00:00Z';
  /** NetBox 3.7's filters of each read-only list (DataFileFilterSet, JobFilterSet) with their lookups, and a value each takes. */
  const FILTERS: Record<string, Record<string, [string, string[]]>> = {
    'data-files': {
      id: ['1', ['n', 'lte', 'lt', 'gte', 'gt', 'empty']],
      path: ['a.txt', ['n', 'ic', 'nic', 'iew', 'niew', 'isw', 'nisw', 'ie', 'nie', 'empty']],
      last_updated: [when, ['n', 'lte', 'lt', 'gte', 'gt', 'empty']],
      size: ['7', ['n', 'lte', 'lt', 'gte', 'gt', 'empty']],
      hash: ['0'.repeat(64), ['n', 'ic', 'nic', 'iew', 'niew', 'isw', 'nisw', 'ie', 'nie', 'empty']],
      created: [when, ['n', 'lte', 'lt', 'gte', 'gt', 'empty']],
      created_by_request: ['00000000-0000-4000-8000-000000000000', []],
      updated_by_request: ['00000000-0000-4000-8000-000000000000', []],
      modified_by_request: ['00000000-0000-4000-8000-000000000000', []],
      q: ['txt', []],
      source_id: ['null', ['n']],
      source: ['local', ['n']],
    },
    jobs: {
      id: ['1', ['n', 'lte', 'lt', 'gte', 'gt', 'empty']],
      object_type: ['1', ['n']],
      object_id: ['1', ['n', 'lte', 'lt', 'gte', 'gt', 'empty']],
      name: ['x', ['n', 'ic', 'nic', 'iew', 'niew', 'isw', 'nisw', 'ie', 'nie', 'empty']],
      interval: ['5', ['n', 'lte', 'lt', 'gte', 'gt', 'empty']],
      status: ['completed', ['n']],
      user: ['1', ['n']],
      q: ['x', []],
      created: [when, []],
      created__before: [when, []],
      created__after: [when, []],
      scheduled: [when, []],
      scheduled__before: [when, []],
      scheduled__after: [when, []],
      started: [when, []],
      started__before: [when, []],
      started__after: [when, []],
      completed: [when, []],
      completed__before: [when, []],
      completed__after: [when, []],
    },
  };

  test.each(Object.keys(FILTERS))('when every filter and lookup NetBox lists for /api/core/%s/ is used, then each answers 200', async (endpoint) => {
    for (const [name, [value, lookups]] of Object.entries(FILTERS[endpoint])) {
      for (const param of [name, ...lookups.map((l) => `${name}__${l}`)]) {
        const v = param.endsWith('__empty') ? 'true' : value;
        const r = await api.get(`/api/core/${endpoint}/?${param}=${encodeURIComponent(v)}`);
        expect([param, r.status]).toEqual([param, 200]);
      }
    }
  });

  test('when the read-only lists are written, then the answer is 405; a job reads NetBox\'s shape', async () => {
    for (const endpoint of ['data-files', 'jobs']) {
      expect((await api.post(`/api/core/${endpoint}/`, {})).status).toBe(405);
      expect((await api.delete(`/api/core/${endpoint}/1/`)).status).toBe(405);
    }
    const job = (await api.get('/api/core/jobs/?limit=1')).body.results[0];
    expect(Object.keys(job)).toEqual(['id', 'url', 'display', 'object_type', 'object_id', 'name', 'status', 'created', 'scheduled', 'interval', 'started', 'completed', 'user', 'data', 'error', 'job_id']);
    expect(job.url).toMatch(/\/api\/core\/jobs\/\d+\/$/);
    expect(job.display).toBe(job.job_id);
    const file = (await api.get('/api/core/data-files/?limit=1')).body.results[0];
    expect(Object.keys(file)).toEqual(['id', 'url', 'display', 'source', 'path', 'last_updated', 'size', 'hash']);
    expect((await api.get('/api/core/data-files/?limit=1&brief=1')).body.results[0]).toEqual({ id: file.id, url: file.url, display: file.path, path: file.path });
    // the filters filter: a job by its status and times, a file by its source's name
    const completed = (await api.get('/api/core/jobs/?status=completed')).body.results as Obj[];
    expect(completed.length).toBeGreaterThan(0);
    expect(completed.every((j) => j.status.value === 'completed')).toBe(true);
    expect((await api.get(`/api/core/jobs/?started__after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body.count).toBe(0);
    expect((await api.get('/api/core/data-files/?source=local')).body.results.every((f: Obj) => f.source.name === 'local')).toBe(true);
  });
});

test('when syncs ran, then the instance\'s metrics count them by outcome', async () => {
  const scraped = await scrapeMetrics(stack.urls.extras);
  expect(scraped.value('inventory_data_source_syncs_total', { outcome: 'completed' })).toBeGreaterThanOrEqual(4);
  expect(scraped.value('inventory_data_source_syncs_total', { outcome: 'errored' })).toBeGreaterThanOrEqual(3);
});
