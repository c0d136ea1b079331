import { mkdtempSync, readdirSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bootStack, Client, eventually, type Stack } from '@inventory/testkit';
import type { RestService } from '@inventory/rest';
import { createService as extras } from '@inventory/extras';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as dcim } from '@inventory/dcim';
import { createService as virtualization } from '@inventory/virtualization';
import { createService as ipam } from '@inventory/ipam';
import { bootstrapAdmin, createService as users } from '@inventory/users';
import { stackGateway } from '@inventory/gateway';
import { GIF_1x1, imageForm, png } from './images';

/**
 * Journal entries and image attachments as a NetBox client meets them, end
 * to end through the gateway with a real token: entries on a device, a
 * prefix and a virtual machine (objects of three other services), each gone
 * with its object; NetBox's two error bodies; an image uploaded as multipart
 * (as pynetbox sends it), read back with its dimensions, its file fetched
 * through the gateway, replaced and deleted with its site; bad uploads
 * refused with nothing stored.
 */
const KEY = '0123456789abcdef0123456789abcdef01234567';
/** Small, so "too large" needs no large file. */
const MAX_IMAGE_SIZE = 16 * 1024;
const mediaRoot = mkdtempSync(path.join(tmpdir(), 'inventory-media-'));
const attachmentsDir = path.join(mediaRoot, 'image-attachments');

let stack: Stack;
let gw: Client;
let base: string;
let usersService: RestService;
beforeAll(async () => {
  stack = await bootStack({
    extras: (c) => extras({ ...c, MEDIA_ROOT: mediaRoot, MAX_IMAGE_SIZE }),
    tenancy,
    users: (c) => (usersService = users(c)),
    dcim,
    virtualization,
    ipam,
    gateway: stackGateway(),
  }, {}, { template: true });
  await bootstrapAdmin(usersService, { SUPERUSER_NAME: 'admin', SUPERUSER_PASSWORD: 'admin-password-1', SUPERUSER_API_TOKEN: KEY });
  base = stack.urls.gateway;
  gw = new Client(base, { identity: null, headers: { authorization: `Token ${KEY}` } });
});
afterAll(async () => {
  await stack?.stop();
  rmSync(mediaRoot, { recursive: true, force: true });
});

type Obj = Record<string, any>;
const D = '/api/dcim';
const J = '/api/extras/journal-entries/';
const A = '/api/extras/image-attachments/';

async function made(p: string, body: Obj): Promise<any> {
  const r = await gw.post(p, body);
  if (r.status !== 201) throw new Error(`POST ${p}: ${r.status} ${r.text}`);
  return r.body;
}
async function read(p: string): Promise<any> {
  const r = await gw.get(p);
  if (r.status !== 200) throw new Error(`GET ${p}: ${r.status} ${r.text}`);
  return r.body;
}
const gone = (p: string, what: string) => eventually(async () => (await gw.get(p)).status === 404, 15_000, what);
const storedFiles = () => (existsSync(attachmentsDir) ? readdirSync(attachmentsDir).sort() : []);

let siteN = 0;
const newSite = () => {
  siteN++;
  return made(`${D}/sites/`, { name: `Attached site ${siteN}`, slug: `attached-site-${siteN}` });
};

describe('journal entries through the gateway', () => {
  let admin: Obj;
  beforeAll(async () => {
    admin = (await read('/api/users/users/?username=admin')).results[0];
    await made(`${D}/manufacturers/`, { name: 'Journal maker', slug: 'journal-maker' });
    await made(`${D}/device-types/`, { manufacturer: { slug: 'journal-maker' }, model: 'Journal box', slug: 'journal-box' });
    await made(`${D}/device-roles/`, { name: 'Journal role', slug: 'journal-role' });
    await made('/api/virtualization/cluster-types/', { name: 'Journal clusters', slug: 'journal-clusters' });
    await made('/api/virtualization/clusters/', { name: 'journal-cluster', type: { slug: 'journal-clusters' } });
  });

  const objects: [string, string, () => Promise<Obj>][] = [
    ['dcim.device', `${D}/devices/`, async () => made(`${D}/devices/`, { name: 'journal-r1', device_type: { slug: 'journal-box' }, role: { slug: 'journal-role' }, site: (await newSite()).id })],
    ['ipam.prefix', '/api/ipam/prefixes/', () => made('/api/ipam/prefixes/', { prefix: '10.77.0.0/16' })],
    ['virtualization.virtualmachine', '/api/virtualization/virtual-machines/', () => made('/api/virtualization/virtual-machines/', { name: 'journal-vm1', cluster: { name: 'journal-cluster' } })],
  ];

  test.each(objects)('when a journal entry is written on a %s, then it shows the object as NetBox nests it, its author and kind, and goes with the object', async (label, listPath, make) => {
    const obj = await make();
    const nested = await read(`${listPath}${obj.id}/?brief=1`);
    const entry = await made(J, { assigned_object_type: label, assigned_object_id: obj.id, comments: `Checked ${obj.display}` });
    expect(entry).toMatchObject({
      url: `${base}${J}${entry.id}/`,
      assigned_object_type: label,
      assigned_object_id: obj.id,
      assigned_object: nested,
      created_by: admin.id,
      kind: { value: 'info', label: 'Info' },
      comments: `Checked ${obj.display}`,
      tags: [],
      custom_fields: {},
    });
    expect(entry.display).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} \(Info\)$/);
    expect(entry.display.slice(0, 16)).toBe(entry.created.slice(0, 16).replace('T', ' '));
    const warning = await made(J, { assigned_object_type: label, assigned_object_id: obj.id, comments: 'second', kind: 'warning' });
    // newest first, found by the object's type and id
    const list = await read(`${J}?assigned_object_type=${label}&assigned_object_id=${obj.id}`);
    expect(list.results.map((e: Obj) => e.id)).toEqual([warning.id, entry.id]);
    expect(await read(`${J}${entry.id}/?brief=1`)).toEqual({ id: entry.id, url: entry.url, display: entry.display, created: entry.created });
    // the object's own detail keeps NetBox's shape: its journal is not nested in it
    const detail = await read(`${listPath}${obj.id}/`);
    expect(Object.keys(detail).filter((k) => /journal|image/.test(k))).toEqual([]);

    expect((await gw.delete(`${listPath}${obj.id}/`)).status).toBe(204);
    await gone(`${J}${entry.id}/`, `${label}'s journal entry deleted with it`);
    await gone(`${J}${warning.id}/`, `${label}'s second journal entry deleted with it`);
    // deleted through extras' own writes: each has its change record, by the user who deleted the object
    await eventually(
      async () => (await read(`/api/extras/object-changes/?changed_object_type=extras.journalentry&changed_object_id=${entry.id}&action=delete`)).count === 1,
      15_000,
      'the cascaded delete in the change log',
    );
    const change = (await read(`/api/extras/object-changes/?changed_object_type=extras.journalentry&changed_object_id=${entry.id}&action=delete`)).results[0];
    expect(change.user_name).toBe('admin');
  });

  test('when the object does not exist, or its model keeps no journal, then the answer is NetBox\'s error body and nothing is written', async () => {
    const before = (await read(J)).count;
    const missing = await gw.post(J, { assigned_object_type: 'dcim.device', assigned_object_id: 999999, comments: 'nowhere' });
    expect([missing.status, missing.body]).toEqual([400, { non_field_errors: ['Invalid assigned_object: DCIM | device ID 999999'] }]);
    const tag = await made('/api/extras/tags/', { name: 'Journal tag', slug: 'journal-tag' });
    const unsupported = await gw.post(J, { assigned_object_type: 'extras.tag', assigned_object_id: tag.id, comments: 'a tag keeps no journal' });
    expect([unsupported.status, unsupported.body]).toEqual([400, { __all__: ['Journaling is not supported for this object type (Extras | tag).'] }]);
    const badKind = await gw.post(J, { assigned_object_type: 'extras.tag', assigned_object_id: tag.id, comments: 'x', kind: 'critical' });
    expect([badKind.status, badKind.body]).toEqual([400, { kind: ['critical is not a valid choice.'] }]);
    expect((await read(J)).count).toBe(before);
  });

  test('when an entry names its author, then it is that user (or nobody), and the author filters find it', async () => {
    const site = await newSite();
    const other = await made('/api/users/users/', { username: 'journalist', password: 'journalist-password-1' });
    const byOther = await made(J, { assigned_object_type: 'dcim.site', assigned_object_id: site.id, comments: 'by another', created_by: other.id, kind: 'success' });
    const byNobody = await made(J, { assigned_object_type: 'dcim.site', assigned_object_id: site.id, comments: 'by nobody', created_by: null });
    expect([byOther.created_by, byNobody.created_by]).toEqual([other.id, null]);
    const ids = async (q: string) => (await read(`${J}?assigned_object_id=${site.id}&${q}`)).results.map((e: Obj) => e.id);
    expect(await ids('created_by=journalist')).toEqual([byOther.id]);
    expect(await ids(`created_by_id=${other.id}`)).toEqual([byOther.id]);
    expect(await ids('kind=success')).toEqual([byOther.id]);
    expect(await ids('q=nobody')).toEqual([byNobody.id]);
    // the author's account goes: the entry stays, without an author (SET_NULL), from the user's delete event
    expect((await gw.delete(`/api/users/users/${other.id}/`)).status).toBe(204);
    await eventually(async () => (await read(`${J}${byOther.id}/`)).created_by === null, 15_000, 'the author cleared');
  });

  test('when the API root, OPTIONS and the OpenAPI document are read, then journal entries and image attachments are in them', async () => {
    const root = await read('/api/extras/');
    expect([root['journal-entries'], root['image-attachments']]).toEqual([`${base}${J}`, `${base}${A}`]);
    const options = await gw.options(J);
    expect(options.status).toBe(200);
    expect(options.body.actions.POST.kind.choices.map((c: Obj) => c.value)).toEqual(['info', 'success', 'warning', 'danger']);
    const post = (await gw.options(A)).body.actions.POST;
    expect([post.content_type.required, post.image]).toEqual([true, { type: 'image upload', required: true, read_only: false, label: 'Image' }]);
    const schema = await gw.get('/api/schema/', { headers: { accept: 'application/json' } });
    expect(Object.keys(schema.body.paths)).toEqual(expect.arrayContaining([J, `${J}{id}/`, A, `${A}{id}/`]));
    expect(Object.keys(schema.body.components.schemas)).toEqual(expect.arrayContaining(['JournalEntry', 'ImageAttachment']));
    // an image is sent as a file part: the schema says so
    expect(Object.keys(schema.body.paths[A].post.requestBody.content)).toEqual(['application/json', 'multipart/form-data']);
    expect(schema.body.components.schemas.ImageAttachmentRequest.properties.image).toEqual({ type: 'string', format: 'binary' });
    expect(schema.body.components.schemas.ImageAttachmentRequest.required).toEqual(expect.arrayContaining(['content_type', 'object_id', 'image']));
  });
});

describe('image attachments through the gateway', () => {
  const upload = (form: FormData, method = 'POST', p = A) => gw.request(method, p, { form });
  /** The file at an image URL, through the gateway. */
  const fetchImage = async (url: string, headers: Record<string, string> = { authorization: `Token ${KEY}` }) => {
    const res = await fetch(url, { headers });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  const count = async () => (await read(A)).count;

  test('when an image is uploaded as multipart, then it reads back with its dimensions and parent, its file is served as the image it is, and it goes with its site', async () => {
    const site = await newSite();
    const image = png(3, 2);
    const r = await upload(imageForm({ content_type: 'dcim.site', object_id: site.id, name: 'front' }, { data: image, name: 'photo.png', type: 'image/png' }));
    expect(r.status).toBe(201);
    const attachment = r.body;
    expect(attachment).toMatchObject({
      url: `${base}${A}${attachment.id}/`,
      display: 'front',
      content_type: 'dcim.site',
      object_id: site.id,
      parent: await read(`${D}/sites/${site.id}/?brief=1`),
      name: 'front',
      image: `${base}/media/image-attachments/site_${site.id}_front.png`,
      image_height: 2,
      image_width: 3,
    });
    expect(await read(`${A}${attachment.id}/`)).toEqual(attachment);
    expect(await read(`${A}${attachment.id}/?brief=1`)).toEqual({ id: attachment.id, url: attachment.url, display: 'front', name: 'front', image: attachment.image });
    expect((await read(`${A}?content_type=dcim.site&object_id=${site.id}`)).results.map((a: Obj) => a.id)).toEqual([attachment.id]);

    const file = await fetchImage(attachment.image);
    expect([file.status, file.headers.get('content-type'), file.headers.get('x-content-type-options')]).toEqual([200, 'image/png', 'nosniff']);
    expect(file.headers.get('content-disposition')).toBe(`inline; filename="site_${site.id}_front.png"`);
    expect(file.bytes.equals(image)).toBe(true);
    // who may not see attachments does not get the file either
    expect((await fetchImage(attachment.image, {})).status).toBe(403);

    // a new image replaces the file (the old one is removed); a JSON change of the name keeps it
    const gif = await upload(imageForm({}, { data: GIF_1x1, name: 'dot.gif' }), 'PATCH', `${A}${attachment.id}/`);
    expect(gif.status).toBe(200);
    expect(gif.body).toMatchObject({ image: `${base}/media/image-attachments/site_${site.id}_front.gif`, image_height: 1, image_width: 1 });
    expect((await fetchImage(attachment.image)).status).toBe(404);
    expect((await fetchImage(gif.body.image)).bytes.equals(GIF_1x1)).toBe(true);
    const renamed = await gw.patch(`${A}${attachment.id}/`, { name: 'back' });
    expect([renamed.status, renamed.body.display, renamed.body.image]).toEqual([200, 'back', gif.body.image]);
    expect(storedFiles()).toContain(`site_${site.id}_front.gif`);

    expect((await gw.delete(`${D}/sites/${site.id}/`)).status).toBe(204);
    await gone(`${A}${attachment.id}/`, 'the attachment deleted with its site');
    await eventually(async () => !storedFiles().includes(`site_${site.id}_front.gif`), 15_000, 'the file removed with the attachment');
    expect((await fetchImage(gif.body.image)).status).toBe(404);
  });

  test('when an attachment is deleted, then its file goes too; a second upload of the same name gets its own file', async () => {
    const site = await newSite();
    const first = await upload(imageForm({ content_type: 'dcim.site', object_id: site.id }, { data: png(4, 4), name: 'rack view.png' }));
    const second = await upload(imageForm({ content_type: 'dcim.site', object_id: site.id }, { data: png(5, 4), name: 'rack view.png' }));
    expect([first.status, second.status]).toEqual([201, 201]);
    // no name: the display is the file's own name, stored as Django stores it (spaces to underscores)
    expect(first.body.display).toBe('rack_view.png');
    expect(first.body.image).toBe(`${base}/media/image-attachments/site_${site.id}_rack_view.png`);
    expect(second.body.image).toMatch(new RegExp(`/media/image-attachments/site_${site.id}_rack_view_[0-9a-f]{7}\\.png$`));
    expect((await gw.delete(`${A}${first.body.id}/`)).status).toBe(204);
    expect(storedFiles()).not.toContain(`site_${site.id}_rack_view.png`);
    expect((await fetchImage(second.body.image)).status).toBe(200);
    expect((await gw.delete(`${A}${second.body.id}/`)).status).toBe(204);
    expect(storedFiles().filter((f) => f.startsWith(`site_${site.id}_`))).toEqual([]);
  });

  test('when an upload is bad (not an image, too large, no file, JSON, no such parent or type), then the answer is a 400 in NetBox\'s shape and nothing is stored', async () => {
    const site = await newSite();
    const before = await count();
    const files = storedFiles();
    const fields = { content_type: 'dcim.site', object_id: site.id };
    const cases: [FormData | Obj, Obj][] = [
      [imageForm(fields, { data: Buffer.from('not an image at all'), name: 'notes.png', type: 'image/png' }), { image: ['Upload a valid image. The file you uploaded was either not an image or a corrupted image.'] }],
      [imageForm(fields, { data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), name: 'x.svg', type: 'image/svg+xml' }), { image: ['Upload a valid image. The file you uploaded was either not an image or a corrupted image.'] }],
      [imageForm(fields, { data: png(200, 200, true), name: 'huge.png' }), { image: [`The file is too large: an image may have at most ${MAX_IMAGE_SIZE} bytes.`] }],
      [imageForm(fields, { data: Buffer.alloc(0), name: 'empty.png' }), { image: ['The submitted file is empty.'] }],
      [imageForm(fields), { image: ['No file was submitted.'] }],
      [imageForm({ ...fields, image: 'photo.png' }), { image: ['The submitted data was not a file. Check the encoding type on the form.'] }],
      [{ ...fields, image: 'photo.png' }, { image: ['The submitted data was not a file. Check the encoding type on the form.'] }],
      [imageForm({ content_type: 'dcim.site', object_id: 999999 }, { data: png(2, 2), name: 'a.png' }), { non_field_errors: ['Invalid parent object: DCIM | site ID 999999'] }],
      [imageForm({ content_type: 'nope.nope', object_id: site.id }, { data: png(2, 2), name: 'a.png' }), { content_type: ['Invalid content type: nope.nope'] }],
      [imageForm({ object_id: site.id }, { data: png(2, 2), name: 'a.png' }), { content_type: ['This field is required.'] }],
    ];
    for (const [body, error] of cases) {
      const r = body instanceof FormData ? await upload(body) : await gw.post(A, body);
      expect([r.status, r.body]).toEqual([400, error]);
    }
    // a form that is not one
    const broken = await gw.request('POST', A, { raw: '--nope\r\nContent-Disposition: form-data; name="x"\r\n\r\n', headers: { 'content-type': 'multipart/form-data; boundary=nope' } });
    expect([broken.status, typeof broken.body.detail]).toEqual([400, 'string']);
    expect(await count()).toBe(before);
    expect(storedFiles()).toEqual(files);
  });

  test('when /media/ is asked to write, to leave its folder, or for a file no attachment names, then it refuses', async () => {
    const site = await newSite();
    const r = await upload(imageForm({ content_type: 'dcim.site', object_id: site.id, name: 'guarded' }, { data: png(2, 2), name: 'a.png' }));
    expect(r.status).toBe(201);
    const head = await fetch(r.body.image, { method: 'HEAD', headers: { authorization: `Token ${KEY}` } });
    expect([head.status, head.headers.get('content-type'), head.headers.get('content-length')]).toEqual([200, 'image/png', String(png(2, 2).length)]);
    const write = await fetch(r.body.image, { method: 'PUT', headers: { authorization: `Token ${KEY}` }, body: 'x' });
    expect([write.status, write.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    for (const p of ['/media/image-attachments/..%2f..%2fetc%2fpasswd', '/media/image-attachments/%2e%2e/secret.png', '/media/other/a.png', '/media/image-attachments/nothing-here.png']) {
      expect([p, (await fetchImage(`${base}${p}`)).status]).toEqual([p, 404]);
    }
    // a file in the folder that no attachment names is not served
    writeFileSync(path.join(attachmentsDir, 'stray.png'), png(1, 1));
    expect((await fetchImage(`${base}/media/image-attachments/stray.png`)).status).toBe(404);
    rmSync(path.join(attachmentsDir, 'stray.png'));
  });

  test('when a write fails after its file was stored (the caller may not add it there), then the file is removed', async () => {
    const site = await newSite();
    const files = storedFiles();
    // straight to extras, as a user allowed to add only attachments named "allowed": the row is written, then refused (403)
    const constrained = stack.client('extras').withIdentity({
      user: { id: 9_000_002, username: 'limited', is_superuser: false, is_staff: false, is_active: true },
      token: { id: 9_000_002, write_enabled: true },
      permissions: [{ object_types: ['extras.imageattachment'], actions: ['add', 'view'], constraints: { name: 'allowed' } }],
    });
    const refused = await constrained.request('POST', A, { form: imageForm({ content_type: 'dcim.site', object_id: site.id, name: 'other' }, { data: png(2, 2), name: 'a.png' }) });
    expect(refused.status).toBe(403);
    await eventually(async () => JSON.stringify(storedFiles()) === JSON.stringify(files), 10_000, 'the refused write\'s file removed');
    const allowed = await constrained.request('POST', A, { form: imageForm({ content_type: 'dcim.site', object_id: site.id, name: 'allowed' }, { data: png(2, 2), name: 'a.png' }) });
    expect(allowed.status).toBe(201);
    expect(storedFiles()).toContain(`site_${site.id}_allowed.png`);
  });
});
