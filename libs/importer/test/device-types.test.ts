import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { bootStack, Client, type Stack } from '@inventory/testkit';
import { createService as users } from '@inventory/users';
import { createService as extras } from '@inventory/extras';
import { createService as dcim } from '@inventory/dcim';
import { stackGateway } from '@inventory/gateway';
import { importDeviceTypes, importDeviceTypesCli, LibraryFileError, TEMPLATE_KINDS, type DeviceTypeImportSummary } from '@inventory/importer';

/**
 * The community device-type library's subset (../shared/devicetype-library)
 * imported through the gateway as a client would: validated against the
 * library's schema, set-based, idempotent, and instantiated into devices.
 */
const repoRoot = path.resolve(__dirname, '..', '..', '..');
const LIBRARY = path.join(repoRoot, '..', 'shared', 'devicetype-library');

/**
 * The subset's files that fail the library's own shipped schema (its SUBSET.md lists them), with a key each
 * names, and the one our API refuses as NetBox does (a child device type must be 0U).
 */
const REFUSED: Record<string, string> = {
  'device-types/Juniper/EX3400-24T.yaml': 'is_full_depth',
  'device-types/APC/SMT1500RMI2U.yaml': 'module-bays[0].position',
  'device-types/Panduit/FAP12WAQDLCZ.yaml': 'u_height',
  'device-types/Dell/PowerEdge-FX2S.yaml': 'power-ports[0].maximum_draw',
  'device-types/Panduit/DP24688TGY.yaml': '_is_powered',
  'device-types/Panduit/FRME1.yaml': 'module-bays[0].position',
  'device-types/Cisco/C8300-1N1S-6T.yaml': 'module-bays[2].position',
  'module-types/Juniper/JNP304-LMIC16-BASE.yaml': 'module_bay_types',
  'device-types/Generic/0u-fan-panel.yaml': 'airflow',
};

const OBJECT_TYPES = [
  'dcim.manufacturer', 'dcim.devicetype', 'dcim.moduletype', 'dcim.site', 'dcim.devicerole', 'dcim.device',
  ...['consoleport', 'consoleserverport', 'powerport', 'poweroutlet', 'interface', 'frontport', 'rearport', 'modulebay', 'devicebay', 'inventoryitem']
    .flatMap((m) => [`dcim.${m}`, `dcim.${m}template`]),
];

let stack: Stack;
let gw: Client;
let token: string;
let auth: { headers: { authorization: string }; identity: null };
let first: DeviceTypeImportSummary;

type Yaml = Record<string, unknown>;
const files = new Map<string, Yaml>();

const run = (folder: string, extra: { onError?: 'stop' | 'skip' } = {}) => importDeviceTypes({ folder, to: stack.urls.gateway, token, ...extra });
const count = async (endpoint: string, query = '') => (await gw.get(`/api/dcim/${endpoint}/?limit=1${query}`, auth)).body.count as number;

/** A library folder holding the schema and the given files (relative path -> YAML text). */
async function tmpLibrary(content: Record<string, string>): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'devtypes-'));
  await fs.cp(path.join(LIBRARY, 'schema'), path.join(dir, 'schema'), { recursive: true });
  for (const [rel, text] of Object.entries(content)) {
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fs.writeFile(path.join(dir, rel), text);
  }
  return dir;
}

beforeAll(async () => {
  stack = await bootStack({ users, extras, dcim, gateway: stackGateway() }, {}, { template: true });
  const admin = await stack.client('users').post('/api/users/users/', { username: 'importer', password: 'importer-password-1' });
  await stack.client('users').post('/api/users/permissions/', { name: 'dcim', object_types: OBJECT_TYPES, actions: ['view', 'add', 'change', 'delete'], users: [admin.body.id] });
  gw = new Client(stack.urls.gateway, { identity: null });
  const provisioned = await gw.post('/api/users/tokens/provision/', { username: 'importer', password: 'importer-password-1' }, { identity: null });
  token = provisioned.body.key;
  auth = { headers: { authorization: `Token ${token}` }, identity: null };
  for (const top of ['device-types', 'module-types']) {
    for (const vendor of await fs.readdir(path.join(LIBRARY, top))) {
      for (const n of await fs.readdir(path.join(LIBRARY, top, vendor))) {
        files.set(`${top}/${vendor}/${n}`, parse(await fs.readFile(path.join(LIBRARY, top, vendor, n), 'utf8'), { version: '1.1' }) as Yaml);
      }
    }
  }
  first = await run(LIBRARY, { onError: 'skip' });
  console.log(`the subset: ${first.files} files in ${first.seconds.toFixed(2)} s (${first.filesPerSecond.toFixed(0)} files/s), ${first.writes.objects} objects in ${first.writes.requests} requests`);
}, 120_000);
afterAll(() => stack?.stop());

test('when the subset is imported, then every file the schema accepts is a type with exactly the templates its YAML lists, and each refused file is named with its key', async () => {
  expect(Object.fromEntries(first.skipped.map((s) => [s.file, s.problems.map((p) => p.key)]))).toEqual(
    Object.fromEntries(Object.entries(REFUSED).map(([f, key]) => [f, expect.arrayContaining([key])])),
  );
  expect(first.skipped.every((s) => s.problems.every((p) => p.line! > 0))).toBe(true);
  expect(first.skipped.find((s) => s.file.endsWith('FAP12WAQDLCZ.yaml'))!.problems[0].message).toMatch(/refused by the API: .*0U/);
  const good = [...files].filter(([f]) => !REFUSED[f]);
  const devices = good.filter(([f]) => f.startsWith('device-types/'));
  expect(await count('device-types')).toBe(devices.length);
  expect(await count('module-types')).toBe(good.length - devices.length);
  expect(await count('manufacturers')).toBe(new Set(good.map(([, y]) => y.manufacturer)).size);
  for (const k of TEMPLATE_KINDS) {
    const listed = good
      .filter(([f]) => !(k.deviceOnly && f.startsWith('module-types/')))
      .reduce((n, [, y]) => n + ((y[k.key] as unknown[] | undefined)?.length ?? 0), 0);
    expect([k.key, await count(k.endpoint)]).toEqual([k.key, listed]);
    expect([k.key, first.counts[k.endpoint]?.created ?? 0]).toEqual([k.key, listed]);
  }
  // fractions, heights of 0, airflow, weights and the power outlet -> power port and front -> rear port mappings as written
  const panelYaml = files.get('device-types/Generic/LC-24-port-fiber-patch-panel-rear-splice.yaml')!;
  const [panel] = (await gw.get(`/api/dcim/device-types/?slug=${String(panelYaml.slug)}`, auth)).body.results;
  const fronts = (await gw.get(`/api/dcim/front-port-templates/?devicetype_id=${panel.id}&limit=100`, auth)).body.results as Yaml[];
  const mapping = (rows: Yaml[]) => rows.map((p) => [String(p.name), String((p.rear_port as Yaml | undefined)?.name ?? p.rear_port), Number(p.rear_port_position ?? 1)]).sort();
  expect(mapping(fronts)).toEqual(mapping(panelYaml['front-ports'] as Yaml[]));
  const outlets = (await gw.get('/api/dcim/power-outlet-templates/?limit=1000', auth)).body.results as { power_port: unknown }[];
  expect(outlets.filter((o) => o.power_port).length).toBeGreaterThan(0);
  const child = (await gw.get('/api/dcim/device-types/?subdevice_role=child&limit=1', auth)).body.results[0];
  expect(Number(child.u_height)).toBe(0);
}, 30_000);

test('when the subset is imported again (by the command), then nothing is written and the summary says so', async () => {
  let out = '';
  let err = '';
  const code = await importDeviceTypesCli([LIBRARY, '--to', stack.urls.gateway, '--to-token', token, '--on-error=skip'], (s) => (out += s), (s) => (err += s));
  expect(code).toBe(1); // files were skipped
  expect(out).toMatch(/ 0 objects written in 0 requests/);
  // every kind: 0 created, 0 updated, 0 deleted, all unchanged
  const rows = Object.fromEntries([...out.matchAll(/^([a-z-]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$/gm)].map((m) => [m[1], m.slice(2).map(Number)]));
  expect(Object.keys(rows).sort()).toEqual(Object.keys(first.counts).sort());
  for (const [kind, c] of Object.entries(first.counts)) expect([kind, rows[kind]]).toEqual([kind, [0, 0, 0, c.created]]);
  expect(out).toMatch(/^skipped device-types\/Juniper\/EX3400-24T\.yaml:\d+: is_full_depth: is required$/m);
  expect(err).toMatch(/181 files read and validated, 8 refused/);
});

test('when a file changes, then its type is PATCHed, added templates created (a bridge set once both ends exist), removed ones deleted, and nothing else written', async () => {
  const rel = 'device-types/Ubiquiti/ER-4.yaml';
  const y = { ...files.get(rel)! };
  const ifaces = [...(y.interfaces as Yaml[])];
  const removed = ifaces.shift()!;
  ifaces[0] = { ...ifaces[0], label: 'uplink', mgmt_only: true };
  ifaces.push({ name: 'eth-new', type: '10gbase-x-sfpp', bridge: ifaces[0].name });
  Object.assign(y, { interfaces: ifaces, u_height: 1.5, airflow: 'rear-to-front', comments: 'changed' });
  const dir = await tmpLibrary({ [rel]: JSON.stringify(y) });
  const r = await run(dir);
  expect(r.counts['device-types']).toEqual({ created: 0, updated: 1, deleted: 0, unchanged: 0 });
  expect(r.counts['interface-templates']).toEqual({ created: 1, updated: 1, deleted: 1, unchanged: ifaces.length - 2 });
  expect(r.counts['interface-template-bridges']).toEqual({ created: 0, updated: 1, deleted: 0, unchanged: 0 });
  expect(r.writes.requests).toBe(5);
  const [dt] = (await gw.get(`/api/dcim/device-types/?model=${encodeURIComponent(String(y.model))}`, auth)).body.results;
  expect([Number(dt.u_height), dt.airflow.value, dt.comments]).toEqual([1.5, 'rear-to-front', 'changed']);
  const rows = (await gw.get(`/api/dcim/interface-templates/?devicetype_id=${dt.id}&limit=100`, auth)).body.results as Yaml[];
  const names = rows.map((i) => i.name);
  expect((rows.find((i) => i.name === 'eth-new')!.bridge as Yaml).name).toBe(ifaces[0].name);
  expect(names).not.toContain(removed.name);
  expect((await run(dir)).writes.objects).toBe(0);
});

test('when a file breaks the schema, then the run stops before writing, naming the file, the key and its line', async () => {
  const dir = await tmpLibrary({
    'device-types/Acme/Good.yaml': 'manufacturer: Acme\nmodel: Good\nslug: acme-good\nu_height: 1\nis_full_depth: true\n',
    'device-types/Acme/Bad.yaml': 'manufacturer: Acme\nmodel: Bad\nslug: acme-bad\nu_height: 1\nis_full_depth: true\ninterfaces:\n  - name: eth0\n    type: 1000base-t\n  - name: eth1\n    type: warp-drive\n',
  });
  const err = await run(dir).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(LibraryFileError);
  expect((err as LibraryFileError).problems).toEqual([expect.objectContaining({ file: 'device-types/Acme/Bad.yaml', key: 'interfaces[1].type', line: 10 })]);
  expect((err as Error).message).toMatch(/^device-types\/Acme\/Bad\.yaml:10: interfaces\[1\]\.type: "warp-drive" is not one of/);
  expect(await count('manufacturers', '&name=Acme')).toBe(0);
});

test('when our API refuses a file, then it is named with the API field messages and, with skip, the other files still land', async () => {
  const dir = await tmpLibrary({
    'device-types/Acme/Good.yaml': 'manufacturer: Acme\nmodel: Good\nslug: acme-good\nu_height: 0.5\nis_full_depth: false\ninterfaces:\n  - name: eth0\n    type: 1000base-t\n',
    'device-types/Acme/Twice.yaml': 'manufacturer: Acme\nmodel: Twice\nslug: acme-twice\nu_height: 1\nis_full_depth: true\ninterfaces:\n  - name: eth0\n    type: 1000base-t\n  - name: eth0\n    type: 1000base-t\n',
  });
  const r = await run(dir, { onError: 'skip' });
  expect(r.skipped).toEqual([{ file: 'device-types/Acme/Twice.yaml', problems: [expect.objectContaining({ key: 'interfaces[1]', line: 9, message: expect.stringMatching(/refused by the API: .*already exists/) })] }]);
  expect(r.counts['interface-templates'].created).toBe(1);
  const [good] = (await gw.get('/api/dcim/device-types/?model=Good', auth)).body.results;
  expect(Number(good.u_height)).toBe(0.5);
});

test('when a device is made of every imported device type, then it has every component of its templates', async () => {
  const site = await gw.post('/api/dcim/sites/', { name: 'Lab', slug: 'lab' }, auth);
  const role = await gw.post('/api/dcim/device-roles/', { name: 'Any', slug: 'any' }, auth);
  const types = (await gw.get('/api/dcim/device-types/?limit=1000', auth)).body.results as Yaml[];
  const made = await gw.post('/api/dcim/devices/', types.map((t) => ({ name: `dev-${String(t.id)}`, device_type: t.id, role: role.body.id, site: site.body.id })), auth);
  expect(made.status).toBe(201);
  const byType = new Map((made.body as Yaml[]).map((d) => [Number((d.device_type as Yaml).id), Number(d.id)]));
  const kinds: [string, string][] = [
    ['console-port-templates', 'console-ports'], ['console-server-port-templates', 'console-server-ports'], ['power-port-templates', 'power-ports'],
    ['power-outlet-templates', 'power-outlets'], ['interface-templates', 'interfaces'], ['rear-port-templates', 'rear-ports'],
    ['front-port-templates', 'front-ports'], ['module-bay-templates', 'module-bays'], ['device-bay-templates', 'device-bays'], ['inventory-item-templates', 'inventory-items'],
  ];
  const all = async (endpoint: string) => {
    const out: Yaml[] = [];
    for (let url: string | null = `/api/dcim/${endpoint}/?limit=1000`; url; ) {
      const page: { results: Yaml[]; next: string | null } = (await gw.get(url, auth)).body;
      out.push(...page.results);
      url = page.next ? new URL(page.next).pathname + new URL(page.next).search : null;
    }
    return out;
  };
  const names = (rows: Yaml[], owner: string, map: (id: number) => number | undefined) => {
    const out = new Map<number, string[]>();
    for (const r of rows) {
      const o = r[owner] as Yaml | null;
      const id = o && map(Number(o.id));
      if (id) out.set(id, [...(out.get(id) ?? []), String(r.name)].sort());
    }
    return out;
  };
  for (const [templates, components] of kinds) {
    const expected = names(await all(templates), 'device_type', (t) => byType.get(t));
    const got = names(await all(components), 'device', (d) => d);
    expect([components, got]).toEqual([components, expected]);
  }
}, 30_000);
