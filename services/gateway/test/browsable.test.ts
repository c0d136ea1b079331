import type { Page } from 'playwright-core';
import { bootStack, launchChromium, pageSender, signIn, type CookieJar, type PageSender, type Stack } from '@inventory/testkit';
import { createService as users } from '@inventory/users';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { CSRF_FAILED, editableCopy, linkify, postTemplate, prefersHtml, stackGateway } from '@inventory/gateway';

/**
 * The browsable API: every endpoint under /api/ answers a browser with a
 * page (DRF's BrowsableAPIRenderer), against the real users, tenancy and
 * extras services behind the gateway; first at the HTTP level, then in a
 * real headless Chromium.
 */

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const PASSWORD = 'alice-password-1';
const NOT_PROVIDED = 'Authentication credentials were not provided.';

let stack: Stack;
let base: string;
let send: PageSender;
let aliceKey: string;
let groupId: number;
let tagId: number;

/** A tenant made directly at the service (as the superuser). */
async function tenant(body: Record<string, unknown>): Promise<{ id: number; url: string }> {
  const res = await stack.client('tenancy').post('/api/tenancy/tenants/', body);
  expect(res.status).toBe(201);
  return { id: res.body.id, url: `${base}/api/tenancy/tenants/${res.body.id}/` };
}

const page = (url: string, headers: Record<string, string> = {}, jar?: CookieJar) => send('GET', url, { jar, headers: { accept: BROWSER_ACCEPT, ...headers } });
const asJson = (url: string, headers: Record<string, string> = {}) => send('GET', url, { headers: { accept: 'application/json', ...headers } });
/** A write as the page's script sends it: JSON body, the session cookie, X-CSRFToken, and Accept: text/html. */
const pageWrite = (method: string, url: string, jar: CookieJar, body?: string, headers: Record<string, string> = {}) =>
  send(method, url, { jar, ...(body !== undefined ? { json: body } : {}), headers: { accept: 'text/html', 'x-csrftoken': jar.cookies.get('csrftoken') ?? '', ...headers } });

/** The JSON text shown in the page's response panel, unescaped and without its links. */
function shownJson(html: string): unknown {
  const m = /<pre class="response">[\s\S]*?\n\n([\s\S]*?)<\/pre>/.exec(html);
  if (!m) throw new Error('no response panel on the page');
  const text = m[1].replace(/<a [^>]*>([^<]*)<\/a>/g, '$1').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  return text ? JSON.parse(text) : undefined;
}

/** The JSON in a form's textarea, unescaped. */
function textareaJson(html: string, id: string): any {
  const m = new RegExp(`<textarea id="${id}"[^>]*>([\\s\\S]*?)</textarea>`).exec(html);
  if (!m) return undefined;
  return JSON.parse(m[1].replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
}

beforeAll(async () => {
  stack = await bootStack({ users, tenancy, extras, gateway: stackGateway({ TOKEN_CACHE_SECONDS: '30', MAX_BODY_SIZE: '4096' }) }, {}, { template: true });
  base = stack.urls.gateway;
  send = pageSender(base);
  const admin = stack.client('users');
  const alice = await admin.post('/api/users/users/', { username: 'alice', password: PASSWORD });
  expect(alice.status).toBe(201);
  const perm = await admin.post('/api/users/permissions/', { name: 'alice tenants', object_types: ['tenancy.tenant'], actions: ['view', 'add', 'change', 'delete'], users: [alice.body.id] });
  expect(perm.status).toBe(201);
  const bob = await admin.post('/api/users/users/', { username: 'bob', password: 'bob-password-1' });
  expect((await admin.post('/api/users/permissions/', { name: 'bob reads', object_types: ['tenancy.tenant'], actions: ['view'], users: [bob.body.id] })).status).toBe(201);
  const provisioned = await send('POST', '/api/users/tokens/provision/', { json: { username: 'alice', password: PASSWORD } });
  expect(provisioned.status).toBe(201);
  aliceKey = provisioned.json.key;
  const group = await stack.client('tenancy').post('/api/tenancy/tenant-groups/', { name: 'Group One', slug: 'group-one' });
  expect(group.status).toBe(201);
  groupId = group.body.id;
  const tag = await stack.client('extras').post('/api/extras/tags/', { name: 'Gold', slug: 'gold' });
  expect(tag.status).toBe(201);
  tagId = tag.body.id;
});
afterAll(() => stack?.stop());

describe('content negotiation', () => {
  test('when Accept headers are weighed as DRF weighs them, then only one that prefers text/html (or ?format=api) gets the page', () => {
    const cases: [string | undefined, string | null, boolean][] = [
      [undefined, null, false],
      ['*/*', null, false],
      ['application/json', null, false],
      ['application/json; version=3.7', null, false],
      ['application/json, text/html', null, false],
      ['text/html, application/json', null, false],
      ['text/html;q=0.1, application/json', null, false],
      [BROWSER_ACCEPT, null, true],
      ['text/html', null, true],
      ['text/*', null, true],
      ['text/html; charset=utf-8, application/json', null, true], // DRF: a parameter makes it more specific than a bare type
      ['application/json; indent=4, text/html', null, false],
      ['text/html;q=0, */*', null, false],
      ['application/xml, */*;q=0.8', null, false],
      ['image/png', null, false],
      ['', null, false],
      ['application/json', 'api', true],
      [BROWSER_ACCEPT, 'json', false],
      [BROWSER_ACCEPT, 'yaml', true],
    ];
    for (const [accept, format, html] of cases) expect([accept, format, prefersHtml(accept, format)]).toEqual([accept, format, html]);
  });

  test('when a JSON client (pynetbox, curl, no Accept) reads through the gateway, then it gets the JSON it got before, byte for byte; a browser gets the page', async () => {
    await tenant({ name: 'Negotiated', slug: 'negotiated', description: 'plain' });
    const token = { authorization: `Token ${aliceKey}` };
    const path = '/api/tenancy/tenants/?slug=negotiated';
    // what the service itself answers for the same host
    const direct = await stack.client('tenancy').get(path, { headers: { 'x-forwarded-host': new URL(base).host, 'x-forwarded-proto': 'http' } });
    expect(direct.body.count).toBe(1);
    for (const accept of ['application/json', '*/*', 'application/json, text/html', undefined]) {
      const res = await fetch(base + path, { headers: { ...token, ...(accept ? { accept } : {}) } });
      expect([accept, res.status, res.headers.get('content-type')]).toEqual([accept, 200, 'application/json']);
      expect(await res.text()).toBe(direct.text);
    }
    const json = await fetch(`${base}${path}&format=json`, { headers: { ...token, accept: BROWSER_ACCEPT } });
    expect(json.headers.get('content-type')).toBe('application/json');
    // a browser sending a token (the fast path's kind of request) and one asking ?format=api get the page
    for (const [url, accept] of [[path, BROWSER_ACCEPT], [`${path}&format=api`, 'application/json']]) {
      const res = await fetch(base + url, { headers: { ...token, accept } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('vary')).toBe('Accept, Cookie');
      expect(await res.text()).toContain('<h1>Tenant List</h1>');
    }
  });
});

describe('the page', () => {
  test('when a list is opened, then it shows the name, the request line, the status, the headers and the JSON with its URLs as links', async () => {
    const t = await tenant({ name: 'Linked', slug: 'linked', group: groupId });
    const res = await page('/api/tenancy/tenants/?slug=linked', { authorization: `Token ${aliceKey}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('allow')).toBe('GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS');
    // the page's one script runs by its hash; nothing else may
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*';/);
    expect(res.text).toContain('<title>Tenant List | NetBox REST API</title>');
    expect(res.text).toContain('<pre class="request"><b>GET</b> /api/tenancy/tenants/?slug=linked</pre>');
    expect(res.text).toContain('<pre class="response"><b>HTTP 200 OK</b>');
    expect(res.text).toContain('\n<b>Allow:</b> GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS');
    expect(res.text).toContain('\n<b>Content-Type:</b> application/json');
    expect(res.text).toContain('\n<b>API-Version:</b> 3.7');
    expect(res.text).toMatch(/\n<b>X-Request-ID:<\/b> [0-9a-f-]{36}/);
    expect(res.text).toContain(`&quot;url&quot;: &quot;<a href="${t.url}" rel="nofollow">${t.url}</a>&quot;`);
    expect(res.text).toContain(`<a href="${base}/api/tenancy/tenant-groups/${groupId}/" rel="nofollow">`);
    expect(shownJson(res.text)).toEqual((await asJson('/api/tenancy/tenants/?slug=linked', { authorization: `Token ${aliceKey}` })).json);
    expect(res.text).toContain('<li><a href="/api/">API Root</a></li><li><a href="/api/tenancy/">Tenancy</a></li><li aria-current="page">tenants</li>');
    expect(res.text).toContain('<a href="/api/tenancy/tenants/?slug=linked&amp;format=json" rel="alternate" type="application/json">json</a>');
  });

  test('when user data holds markup and scripts, then every byte of it is escaped and only http(s) URLs become links', async () => {
    const evil = await tenant({
      name: '<script>alert("name")</script>',
      slug: 'evil',
      description: '"><img src=x onerror=alert(1)>',
      comments: "javascript:alert(1) and http://example.com/a\"onmouseover='x' </pre></textarea><script>x()</script>",
    });
    const { jar } = await signIn(send, 'alice', PASSWORD);
    for (const url of ['/api/tenancy/tenants/?slug=evil', `/api/tenancy/tenants/${evil.id}/`, `/api/tenancy/tenants/?name=${encodeURIComponent('<script>x</script>')}&format=api`]) {
      const res = await page(url, {}, jar);
      expect(res.status).toBe(200);
      // the page's own script tag is the only one
      expect(res.text.match(/<script/g)).toHaveLength(1);
      expect(res.text).not.toContain('<img');
      expect(res.text).not.toContain('</textarea><');
      expect(res.text).not.toMatch(/href="javascript:/i);
      expect(res.text).not.toContain("onmouseover='x'");
    }
    const detail = await page(`/api/tenancy/tenants/${evil.id}/`, {}, jar);
    expect(detail.text).toContain('&quot;name&quot;: &quot;&lt;script&gt;alert(\\&quot;name\\&quot;)&lt;/script&gt;&quot;');
    expect(detail.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    // the URL in the comment is a link up to the (escaped) quote, nothing after it
    expect(detail.text).toContain('<a href="http://example.com/a" rel="nofollow">http://example.com/a</a>\\&quot;onmouseover=&#39;x&#39;');
    // and the edit form's textarea shows the same text, escaped, so sending it back changes nothing
    expect(textareaJson(detail.text, 'id_edit_content')).toMatchObject({ name: '<script>alert("name")</script>', description: '"><img src=x onerror=alert(1)>' });
    const filtered = await page(`/api/tenancy/tenants/?name=${encodeURIComponent('<script>x</script>')}&format=api`, {}, jar);
    expect(filtered.text).toContain('value="name=%3Cscript%3Ex%3C%2Fscript%3E"');
  });

  test('when a list has more pages, then previous and next link to them, keeping the filters and ?format=api', async () => {
    for (const i of [1, 2, 3]) await tenant({ name: `Paged ${i}`, slug: `paged-${i}`, description: 'paged' });
    const token = { authorization: `Token ${aliceKey}` };
    const first = await page('/api/tenancy/tenants/?description=paged&limit=1&format=api', token);
    expect(first.text).toMatch(/<span>« Previous<\/span><span>3 in all<\/span><a href="[^"]+" rel="next">Next »<\/a>/);
    const next = /<a href="([^"]+)" rel="next">/.exec(first.text)![1].replace(/&amp;/g, '&');
    expect(new URL(next).searchParams.get('offset')).toBe('1');
    expect(new URL(next).searchParams.get('format')).toBe('api');
    expect(new URL(next).searchParams.get('description')).toBe('paged');
    const middle = await fetch(next, { headers: token });
    const html = await middle.text();
    expect(middle.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toMatch(/<a href="[^"]+" rel="prev">« Previous<\/a><span>3 in all<\/span><a href="[^"]+" rel="next">Next »<\/a>/);
    expect((shownJson(html) as { results: { name: string }[] }).results.map((r) => r.name)).toEqual(['Paged 2']);
    // one page only: no pagination bar
    expect((await page('/api/tenancy/tenants/?description=paged', token)).text).not.toContain('rel="next"');
  });

  test('when a list is opened, then its filter box holds the filters, and a detail has none', async () => {
    const token = { authorization: `Token ${aliceKey}` };
    const list = await page('/api/tenancy/tenants/?description=paged&ordering=-name&format=api', token);
    expect(list.text).toContain('<input type="text" id="id_filters" name="filters" value="description=paged&amp;ordering=-name"');
    const t = await tenant({ name: 'No filters', slug: 'no-filters' });
    expect((await page(`/api/tenancy/tenants/${t.id}/`, token)).text).not.toContain('id="filter-form"');
  });

  test('when a detail is opened, then it is named "Instance" with its ETag, and a missing one is a 404 page', async () => {
    const t = await tenant({ name: 'Detailed', slug: 'detailed' });
    const token = { authorization: `Token ${aliceKey}` };
    const res = await page(`/api/tenancy/tenants/${t.id}/`, token);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Tenant Instance</h1>');
    expect(res.text).toContain('\n<b>ETag:</b> &quot;1&quot;');
    expect(res.text).toContain(`<li aria-current="page">${t.id}</li>`);
    const missing = await page('/api/tenancy/tenants/99999/', token);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
    expect(missing.text).toContain('<b>HTTP 404 Not Found</b>');
    expect(shownJson(missing.text)).toEqual({ detail: 'Not found.' });
  });

  test('when /api/, an area root or /api/status/ is opened, then they are pages too, with their links', async () => {
    const root = await page('/api/');
    expect(root.status).toBe(200);
    expect(root.text).toContain('<h1>API Root</h1>');
    expect(root.text).toContain(`<a href="${base}/api/tenancy/" rel="nofollow">`);
    const area = await page('/api/tenancy/');
    expect(area.text).toContain('<h1>Tenancy</h1>');
    expect(area.text).toContain(`<a href="${base}/api/tenancy/tenants/" rel="nofollow">`);
    const status = await page('/api/status/');
    expect(status.text).toContain('<h1>Status</h1>');
    expect(shownJson(status.text)).toMatchObject({ 'netbox-version': '3.7.8', services: { tenancy: 'ok' } });
    const options = await send('OPTIONS', '/api/tenancy/tenants/', { headers: { accept: 'text/html', authorization: `Token ${aliceKey}` } });
    expect(options.text).toContain('<b>OPTIONS</b> /api/tenancy/tenants/');
    expect(shownJson(options.text)).toMatchObject({ name: 'Tenant', actions: { POST: { name: { required: true } } } });
  });
});

describe('forms', () => {
  test('when the reader has no session (anonymous or a token), then the page has no forms and no CSRF token', async () => {
    const t = await tenant({ name: 'Formless', slug: 'formless' });
    for (const url of ['/api/tenancy/tenants/', `/api/tenancy/tenants/${t.id}/`]) {
      const res = await page(url, { authorization: `Token ${aliceKey}` });
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('<textarea');
      expect(res.text).not.toContain('value="DELETE"');
      expect(res.text).not.toContain('<meta name="csrf-token"');
      expect(res.text).toContain('>Log in</a>');
    }
  });

  test('when a signed-in user may add, change and delete, then the list has a POST form with a template and a detail a PUT/PATCH form with the object and a DELETE button', async () => {
    const t = await tenant({ name: 'Editable', slug: 'editable', group: groupId, tags: [tagId], description: 'before' });
    const { jar } = await signIn(send, 'alice', PASSWORD);
    const list = await page('/api/tenancy/tenants/', {}, jar);
    expect(list.text).toContain('Signed in as <strong>alice</strong>');
    expect(list.text).toContain(`<meta name="csrf-token" content="${jar.cookies.get('csrftoken')}">`);
    expect(textareaJson(list.text, 'id_post_content')).toEqual({ name: '', slug: '' });
    // the optional fields are listed beside the form
    expect(list.text).toContain('<tr><td><code>description</code></td><td>string</td><td>max 200 characters</td></tr>');
    expect(list.text).not.toContain('id_edit_content');

    const detail = await page(`/api/tenancy/tenants/${t.id}/`, {}, jar);
    expect(detail.text).not.toContain('id_post_content');
    expect(textareaJson(detail.text, 'id_edit_content')).toEqual({ name: 'Editable', slug: 'editable', group: groupId, description: 'before', comments: '', tags: [tagId], custom_fields: {} });
    expect(detail.text).toContain(`<form data-url="/api/tenancy/tenants/${t.id}/" data-method="PUT" data-etag="&quot;1&quot;">`);
    expect(detail.text).toContain('<button type="submit" class="write" value="PUT">PUT</button><button type="submit" class="write" value="PATCH">PATCH</button>');
    expect(detail.text).toContain('data-confirm="Delete this object? This cannot be undone."');

    // the form's JSON, sent back unchanged with PUT, changes nothing
    const put = await pageWrite('PUT', `/api/tenancy/tenants/${t.id}/`, jar, JSON.stringify(textareaJson(detail.text, 'id_edit_content')), { 'if-match': '"1"' });
    expect(put.status).toBe(200);
    const after = (await asJson(`/api/tenancy/tenants/${t.id}/`, { authorization: `Token ${aliceKey}` })).json;
    expect(after).toMatchObject({ name: 'Editable', group: { id: groupId }, tags: [{ id: tagId }], description: 'before' });
  });

  test('when a signed-in user may only view, then there are no forms', async () => {
    const t = await tenant({ name: 'Read only', slug: 'read-only' });
    const { jar } = await signIn(send, 'bob', 'bob-password-1');
    const list = await page('/api/tenancy/tenants/', {}, jar);
    expect(list.status).toBe(200);
    expect(list.text).toContain('Signed in as <strong>bob</strong>');
    expect(list.text).not.toContain('id_post_content');
    const detail = await page(`/api/tenancy/tenants/${t.id}/`, {}, jar);
    expect(detail.status).toBe(200);
    expect(detail.text).not.toContain('id_edit_content');
  });

  test('when the page writes (POST, PATCH, DELETE) with the session and CSRF token, then the API answers and the page shows it, errors included', async () => {
    const { jar } = await signIn(send, 'alice', PASSWORD);
    const created = await pageWrite('POST', '/api/tenancy/tenants/', jar, JSON.stringify({ name: 'From the page', slug: 'from-the-page' }));
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^text\/html/);
    expect(created.text).toContain('<b>POST</b> /api/tenancy/tenants/');
    expect(created.text).toContain('<b>HTTP 201 Created</b>');
    const object = shownJson(created.text) as { id: number; url: string; name: string };
    expect(object.name).toBe('From the page');
    expect(created.text).toContain(`\n<b>Location:</b> <a href="${object.url}" rel="nofollow">`);
    // the list's POST form comes back, ready for the next object
    expect(textareaJson(created.text, 'id_post_content')).toEqual({ name: '', slug: '' });

    const path = `/api/tenancy/tenants/${object.id}/`;
    const invalid = await pageWrite('PATCH', path, jar, JSON.stringify({ slug: 'not a slug!' }));
    expect(invalid.status).toBe(400);
    expect(invalid.text).toContain('<b>HTTP 400 Bad Request</b>');
    expect(Object.keys(shownJson(invalid.text) as object)).toEqual(['slug']);
    const malformed = await pageWrite('PATCH', path, jar, '{"name": ');
    expect(malformed.status).toBe(400);
    expect((shownJson(malformed.text) as { detail: string }).detail).toMatch(/^JSON parse error/);
    const stale = await pageWrite('PATCH', path, jar, JSON.stringify({ description: 'stale' }), { 'if-match': '"7"' });
    expect(stale.status).toBe(412);
    const noCsrf = await pageWrite('PATCH', path, jar, JSON.stringify({ description: 'forged' }), { 'x-csrftoken': '' });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.headers.get('content-type')).toMatch(/^text\/html/);
    expect(shownJson(noCsrf.text)).toEqual({ detail: CSRF_FAILED });

    const patched = await pageWrite('PATCH', path, jar, JSON.stringify({ description: 'after' }), { 'if-match': '"1"' });
    expect(patched.status).toBe(200);
    expect(textareaJson(patched.text, 'id_edit_content')).toMatchObject({ description: 'after' });
    expect(patched.text).toContain('data-etag="&quot;2&quot;"');
    expect((await asJson(path, { authorization: `Token ${aliceKey}` })).json.description).toBe('after');

    const deleted = await pageWrite('DELETE', path, jar);
    expect(deleted.status).toBe(200); // a page needs a body: the API's 204 is shown inside it
    expect(deleted.text).toContain('<b>HTTP 204 No Content</b>');
    expect(deleted.text).not.toContain('id_edit_content');
    expect((await asJson(path, { authorization: `Token ${aliceKey}` })).status).toBe(404);
  });
});

describe('errors as pages', () => {
  test('when a browser is refused (no credentials, a bad token, an unknown path, a wrong method, a body too large), then the refusal is a page; a JSON client gets the JSON', async () => {
    const anonymous = await page('/api/tenancy/tenants/');
    expect(anonymous.status).toBe(403);
    expect(anonymous.headers.get('content-type')).toMatch(/^text\/html/);
    expect(anonymous.text).toContain('<b>HTTP 403 Forbidden</b>');
    expect(shownJson(anonymous.text)).toEqual({ detail: NOT_PROVIDED });
    expect(anonymous.text).toContain('<a href="/login/?next=%2Fapi%2Ftenancy%2Ftenants%2F">Log in</a>');
    expect((await asJson('/api/tenancy/tenants/')).json).toEqual({ detail: NOT_PROVIDED });

    const badToken = await page('/api/tenancy/tenants/', { authorization: `Token ${'f'.repeat(40)}` });
    expect(badToken.status).toBe(403);
    expect(shownJson(badToken.text)).toEqual({ detail: 'Invalid token' });

    const unknown = await page('/api/nonsense/things/');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('<b>HTTP 404 Not Found</b>');

    const wrongMethod = await send('PUT', '/api/', { headers: { accept: 'text/html', authorization: `Token ${aliceKey}` } });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('content-type')).toMatch(/^text\/html/);
    expect(wrongMethod.text).toContain('\n<b>Allow:</b> GET, HEAD, OPTIONS');
    expect(shownJson(wrongMethod.text)).toEqual({ detail: 'Method "PUT" not allowed.' });

    const anonymousWrite = await send('POST', '/api/tenancy/tenants/', { json: '{}', headers: { accept: 'text/html' } });
    expect(anonymousWrite.status).toBe(403);
    expect(anonymousWrite.headers.get('content-type')).toMatch(/^text\/html/);

    // a body over MAX_BODY_SIZE from the page never reaches the service
    const { jar } = await signIn(send, 'alice', PASSWORD);
    const tooLarge = await pageWrite('POST', '/api/tenancy/tenants/', jar, JSON.stringify({ name: 'Too large', slug: 'too-large', comments: 'x'.repeat(5000) }));
    expect(tooLarge.status).toBe(413);
    expect(shownJson(tooLarge.text)).toEqual({ detail: 'Request body too large (limit 4096 bytes).' });
    expect((await asJson('/api/tenancy/tenants/?slug=too-large', { authorization: `Token ${aliceKey}` })).json.count).toBe(0);
  });
});

describe('building blocks', () => {
  test('when text is linkified, then http(s) URLs become links without trailing punctuation and everything else is escaped text', () => {
    expect(linkify('see https://netbox.example/api/?a=1&b=2. <b>')).toBe(
      'see <a href="https://netbox.example/api/?a=1&amp;b=2" rel="nofollow">https://netbox.example/api/?a=1&amp;b=2</a>. &lt;b&gt;',
    );
    expect(linkify('javascript:alert(1) ftp://x/ data:text/html,<script>')).toBe('javascript:alert(1) ftp://x/ data:text/html,&lt;script&gt;');
    expect(linkify('(http://a.example/x)')).toBe('(<a href="http://a.example/x" rel="nofollow">http://a.example/x</a>)');
  });

  test('when forms are prefilled from OPTIONS, then POST gets the required writable fields and PUT the object as a write takes it', () => {
    const fields = {
      id: { type: 'integer', read_only: true },
      name: { type: 'string', required: true },
      status: { type: 'choice', required: false, choices: [{ value: 'active' }] },
      weight: { type: 'integer', required: true },
      site: { type: 'nested object', required: true },
      enabled: { type: 'boolean', required: true },
      tags: { type: 'list', required: false },
      custom_fields: { type: 'field', required: false },
      local_context_data: { type: 'field', required: false },
      count: { type: 'integer', read_only: true },
    };
    expect(postTemplate(fields)).toEqual({ name: '', weight: null, site: null, enabled: false });
    const object = {
      id: 4,
      url: 'http://x/api/dcim/devices/4/',
      name: 'd1',
      status: { value: 'active', label: 'Active' },
      weight: null,
      site: { id: 2, url: 'http://x/api/dcim/sites/2/', display: 's' },
      tags: [{ id: 7, name: 'gold' }],
      custom_fields: { owner: { id: 3, display: 't' }, peers: [{ id: 5 }, { id: 6 }], note: 'n' },
      local_context_data: { value: 1, label: 'kept as it is', other: true },
      count: 3,
    };
    expect(editableCopy(object, fields)).toEqual({
      name: 'd1',
      status: 'active',
      weight: null,
      site: 2,
      tags: [7],
      custom_fields: { owner: 3, peers: [5, 6], note: 'n' },
      local_context_data: { value: 1, label: 'kept as it is', other: true },
    });
  });
});

describe('in a real browser', () => {
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let tab: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    tab = browser.context.pages()[0] ?? (await browser.context.newPage());
    tab.setDefaultTimeout(20_000);
  }, 11 * 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  /** The JSON in the page's response panel, as the browser shows it. */
  const responseJson = async () => {
    const text = (await tab.textContent('pre.response')) ?? '';
    return JSON.parse(text.slice(text.indexOf('\n\n') + 2) || 'null');
  };
  const statusLine = async () => (await tab.textContent('pre.response b'))?.trim();
  /** Waits for the page's script to show an answer: its status line (and request method). */
  const shows = (status: string, method = '') =>
    tab.waitForFunction(
      ([s, m]) => {
        const doc = (globalThis as any).document;
        return doc.querySelector('pre.response b')?.textContent?.startsWith(s) && doc.querySelector('pre.request')?.textContent?.startsWith(m);
      },
      [status, method],
    );

  test('when a user signs in, browses, filters, creates, edits and deletes a tenant in the pages, then every step goes through the API and shows its answer', async () => {
    await tenant({ name: 'Browser A', slug: 'browser-a', description: 'browser' });
    await tenant({ name: 'Browser B', slug: 'browser-b', description: 'browser' });
    const xss = await tenant({ name: '<img src=x onerror="document.title=\'pwned\'">', slug: 'browser-xss', description: 'browser' });
    const dialogs: string[] = [];
    tab.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.accept();
    });

    await tab.goto(`${base}/login/?next=${encodeURIComponent('/api/tenancy/tenants/?description=browser')}`);
    await tab.fill('#id_username', 'alice');
    await tab.fill('#id_password', PASSWORD);
    await Promise.all([tab.waitForURL(`${base}/api/tenancy/tenants/?description=browser`), tab.click('button[type=submit]')]);
    expect(await tab.textContent('h1')).toBe('Tenant List');
    expect(await tab.textContent('nav.user')).toContain('Signed in as alice');
    expect((await responseJson()).count).toBe(3);
    // the markup in a name stayed text: no image, no script ran
    expect(await tab.locator('pre.response img').count()).toBe(0);
    expect(await tab.title()).toBe('Tenant List | NetBox REST API');
    expect(JSON.stringify(await responseJson())).toContain(xss.url);

    // follow a link in the JSON to a detail
    const link = tab.locator(`pre.response a[href="${xss.url}"]`).first();
    await Promise.all([tab.waitForURL(xss.url), link.click()]);
    expect(await tab.textContent('h1')).toBe('Tenant Instance');
    expect((await responseJson()).name).toBe('<img src=x onerror="document.title=\'pwned\'">');
    expect(await tab.title()).toBe('Tenant Instance | NetBox REST API');

    // filter the list
    await tab.goto(`${base}/api/tenancy/tenants/?description=browser`);
    await tab.fill('#id_filters', 'description=browser&slug=browser-b');
    await Promise.all([tab.waitForURL(/slug=browser-b/), tab.click('#filter-form button')]);
    expect((await responseJson()).results.map((r: { slug: string }) => r.slug)).toEqual(['browser-b']);
    expect(await tab.inputValue('#id_filters')).toBe('description=browser&slug=browser-b');

    // an invalid POST shows the API's 400 and keeps what was typed
    await tab.fill('#id_post_content', JSON.stringify({ name: 'No slug' }));
    await tab.click('button[value=POST]');
    await shows('HTTP 400');
    expect(Object.keys(await responseJson())).toEqual(['slug']);
    expect(JSON.parse(await tab.inputValue('#id_post_content'))).toEqual({ name: 'No slug' });

    // create through the POST form
    await tab.fill('#id_post_content', JSON.stringify({ name: 'Made in Chromium', slug: 'made-in-chromium', description: 'browser' }));
    await tab.click('button[value=POST]');
    await shows('HTTP 201');
    expect(await statusLine()).toBe('HTTP 201 Created');
    const created = await responseJson();
    expect(created).toMatchObject({ name: 'Made in Chromium', slug: 'made-in-chromium' });
    const listed = await fetch(`${base}/api/tenancy/tenants/?slug=made-in-chromium`, { headers: { authorization: `Token ${aliceKey}`, accept: 'application/json' } });
    expect(((await listed.json()) as { count: number }).count).toBe(1);

    // open it and edit it with PATCH
    await Promise.all([tab.waitForURL(created.url), tab.locator(`pre.response a[href="${created.url}"]`).first().click()]);
    expect(await tab.textContent('h1')).toBe('Tenant Instance');
    const form = JSON.parse(await tab.inputValue('#id_edit_content'));
    expect(form).toMatchObject({ name: 'Made in Chromium', slug: 'made-in-chromium' });
    await tab.fill('#id_edit_content', JSON.stringify({ description: 'edited in Chromium' }));
    await tab.click('button[value=PATCH]');
    await shows('HTTP 200', 'PATCH');
    expect(await statusLine()).toBe('HTTP 200 OK');
    expect((await responseJson()).description).toBe('edited in Chromium');
    expect(JSON.parse(await tab.inputValue('#id_edit_content')).description).toBe('edited in Chromium');
    await tab.reload();
    expect((await responseJson()).description).toBe('edited in Chromium');

    // delete it, after the confirmation
    await tab.click('button[value=DELETE]');
    await shows('HTTP 204', 'DELETE');
    expect(dialogs).toEqual(['Delete this object? This cannot be undone.']);
    expect(await statusLine()).toBe('HTTP 204 No Content');
    expect(await tab.locator('#id_edit_content').count()).toBe(0);
    await tab.reload();
    expect(await statusLine()).toBe('HTTP 404 Not Found');
  }, 120_000);
});
