import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { bootStack, CookieJar as Jar, csrfField, eventually, launchChromium, pageSender, signIn, type PageSender, type Stack } from '@inventory/testkit';
import { createService as users } from '@inventory/users';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import {
  CSRF_FAILED,
  CsrfTokens,
  expiresFromForm,
  maskedKey,
  parseCookies,
  safeNext,
  SessionCodec,
  sessionSecret,
  stackGateway,
} from '@inventory/gateway';

/**
 * Browser sign-in and token management, against the real users, tenancy and
 * extras services behind the gateway: first at the HTTP level (fetch with a
 * hand-kept cookie jar), then in a real headless Chromium.
 */

const PASSWORD = 'alice-password-1';
let stack: Stack;
let base: string;
let aliceId: number;

beforeAll(async () => {
  stack = await bootStack({
    users,
    tenancy,
    extras,
    // the https case below comes through a (trusted) TLS-terminating proxy
    gateway: stackGateway({ TOKEN_CACHE_SECONDS: '30', TRUSTED_PROXIES: '127.0.0.1/32' }),
  }, {}, { template: true });
  base = stack.urls.gateway;
  const admin = stack.client('users');
  const alice = await admin.post('/api/users/users/', { username: 'alice', password: PASSWORD });
  expect(alice.status).toBe(201);
  aliceId = alice.body.id;
  const perm = await admin.post('/api/users/permissions/', { name: 'alice tenants', object_types: ['tenancy.tenant'], actions: ['view', 'add'], users: [aliceId] });
  expect(perm.status).toBe(201);
  const bob = await admin.post('/api/users/users/', { username: 'bob', password: 'bob-password-1' });
  expect(bob.status).toBe(201);
});
afterAll(() => stack?.stop());

const send: PageSender = (method, url, opts) => pageSender(base)(method, url, opts);

/** Signs in through the form as a browser would; returns the jar with the session and CSRF cookies. */
const login = (username = 'alice', password = PASSWORD, extra: Record<string, string> = {}) => signIn(send, username, password, extra);

const token = (key: string) => ({ authorization: `Token ${key}`, accept: 'application/json' });

describe('signing in and out', () => {
  test('when the login page is opened, then it shows a form with username, password, CSRF token and next, and sets the CSRF cookie', async () => {
    const jar = new Jar();
    const page = await send('GET', '/login/?next=/user/api-tokens/', { jar });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.text).toMatch(/<input type="text" id="id_username" name="username"/);
    expect(page.text).toMatch(/<input type="password" id="id_password" name="password"/);
    expect(page.text).toContain('<input type="hidden" name="next" value="/user/api-tokens/">');
    expect(csrfField(page.text)).toBe(jar.cookies.get('csrftoken'));
    expect((await send('GET', '/login', {})).headers.get('location')).toBe('/login/');
  });

  test('when the credentials are wrong, then the form comes back with 403 and Invalid username/password, and no session', async () => {
    const { jar, answer } = await login('alice', 'wrong-password');
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('Invalid username/password');
    expect(answer.text).toContain('value="alice"');
    expect(jar.cookies.has('sessionid')).toBe(false);
    const unknown = await login('nobody', 'whatever-password');
    expect(unknown.answer.status).toBe(403);
    expect(unknown.answer.text).toContain('Invalid username/password');
  });

  test('when the credentials are right, then 302 to next with an HttpOnly, SameSite=Lax session cookie (Secure only over https)', async () => {
    const { jar, answer } = await login();
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('/api/');
    const session = answer.setCookies.find((c) => c.startsWith('sessionid='))!;
    expect(session).toMatch(/; Path=\/(;|$)/);
    expect(session).toMatch(/; HttpOnly(;|$)/);
    expect(session).toMatch(/; SameSite=Lax(;|$)/);
    expect(session).toMatch(/; Max-Age=1209600(;|$)/);
    expect(session).not.toMatch(/Secure/);
    // user id . session id . issued at . expires . signature
    expect(jar.cookies.get('sessionid')).toMatch(new RegExp(`^${aliceId}\\.[A-Za-z0-9_-]{22}\\.\\d+\\.\\d+\\.[A-Za-z0-9_-]{43}$`));
    const csrf = answer.setCookies.find((c) => c.startsWith('csrftoken='))!;
    expect(csrf).not.toMatch(/HttpOnly/); // scripts read it to send X-CSRFToken

    const viaTls = new Jar();
    const form = await send('GET', '/login/', { jar: viaTls, headers: { 'x-forwarded-proto': 'https' } });
    const secure = await send('POST', '/login/', {
      jar: viaTls,
      headers: { 'x-forwarded-proto': 'https' },
      form: { csrfmiddlewaretoken: csrfField(form.text), username: 'alice', password: PASSWORD },
    });
    expect(secure.status).toBe(302);
    expect(secure.setCookies.find((c) => c.startsWith('sessionid='))).toMatch(/; Secure(;|$)/);
  });

  test('when the login form is posted without its CSRF token or with a foreign next, then it is refused or sent home', async () => {
    const jar = new Jar();
    await send('GET', '/login/', { jar });
    const noToken = await send('POST', '/login/', { jar, form: { username: 'alice', password: PASSWORD } });
    expect(noToken.status).toBe(403);
    expect(noToken.text).toContain('CSRF verification failed. Request aborted.');
    expect(jar.cookies.has('sessionid')).toBe(false);
    const noCookie = await send('POST', '/login/', { form: { csrfmiddlewaretoken: csrfField((await send('GET', '/login/')).text), username: 'alice', password: PASSWORD } });
    expect(noCookie.status).toBe(403);

    const { answer } = await login('alice', PASSWORD, { next: '//evil.example/x' });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('/api/');
    const deep = await login('alice', PASSWORD, { next: '/api/tenancy/tenants/?limit=5' });
    expect(deep.answer.headers.get('location')).toBe('/api/tenancy/tenants/?limit=5');
  });

  test('when a signed-in browser reads /api/, then the page says who is signed in and links the tokens and logout; anonymous gets Log in', async () => {
    const { jar } = await login();
    const page = await send('GET', '/api/', { jar });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Signed in as <strong>alice</strong>');
    expect(page.text).toContain('<a href="/user/api-tokens/">API tokens</a>');
    expect(page.text).toContain('action="/logout/"');
    expect(csrfField(page.text)).toBe(jar.cookies.get('csrftoken'));
    const anonymous = await send('GET', '/api/', {});
    expect(anonymous.text).toContain('<a href="/login/?next=%2Fapi%2F">Log in</a>');
    expect(anonymous.text).not.toContain('Signed in as');
  });

  test('when logging out, then the cookies are cleared and the old session cookie no longer authenticates', async () => {
    const { jar } = await login();
    const stolen = jar.copy();
    expect((await send('GET', '/api/tenancy/tenants/', { jar: stolen.copy(), headers: { accept: 'application/json' } })).status).toBe(200);

    const withoutCsrf = await send('POST', '/logout/', { jar: jar.copy(), form: {} });
    expect(withoutCsrf.status).toBe(403);
    expect((await send('GET', '/api/tenancy/tenants/', { jar: stolen.copy(), headers: { accept: 'application/json' } })).status).toBe(200);

    const out = await send('POST', '/logout/', { jar, form: { csrfmiddlewaretoken: jar.cookies.get('csrftoken')! } });
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe('/login/');
    expect(out.setCookies.find((c) => c.startsWith('sessionid='))).toMatch(/Max-Age=0/);
    expect(jar.cookies.has('sessionid')).toBe(false);
    expect((await send('GET', '/logout/', {})).status).toBe(405);

    const replay = await send('GET', '/api/tenancy/tenants/', { jar: stolen.copy(), headers: { accept: 'application/json' } });
    expect(replay.status).toBe(403);
    expect((await send('GET', '/user/api-tokens/', { jar: stolen.copy() })).status).toBe(302);
  });
});

describe('the session on the API', () => {
  test('when a session cookie is sent to a permission-guarded list, then it is read as the signed-in user', async () => {
    const { jar } = await login();
    const json = { accept: 'application/json' };
    expect((await send('GET', '/api/tenancy/tenants/', { headers: json })).status).toBe(403);
    const list = await send('GET', '/api/tenancy/tenants/', { jar, headers: json });
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ count: expect.any(Number), results: expect.any(Array) });
  });

  test('when a cookie-authenticated write has no or a wrong CSRF token, then 403 with DRF text; with the token, then 201', async () => {
    const { jar } = await login();
    const body = { name: 'Session Tenant', slug: 'session-tenant' };
    const missing = await send('POST', '/api/tenancy/tenants/', { jar, json: body });
    expect(missing.status).toBe(403);
    expect(missing.json).toEqual({ detail: CSRF_FAILED });
    expect(missing.json.detail).toBe('CSRF Failed: CSRF token missing or incorrect.');
    const wrong = await send('POST', '/api/tenancy/tenants/', { jar, json: body, headers: { 'x-csrftoken': 'x'.repeat(43) } });
    expect(wrong.status).toBe(403);
    expect(wrong.json).toEqual({ detail: CSRF_FAILED });
    // another session's token is not this session's
    const other = await login();
    const foreign = await send('POST', '/api/tenancy/tenants/', { jar, json: body, headers: { 'x-csrftoken': other.jar.cookies.get('csrftoken')! } });
    expect(foreign.status).toBe(403);

    const ok = await send('POST', '/api/tenancy/tenants/', { jar, json: body, headers: { 'x-csrftoken': jar.cookies.get('csrftoken')! } });
    expect(ok.status).toBe(201);
    expect(ok.json.slug).toBe('session-tenant');
  });

  test('when a token authenticates, then CSRF does not apply even if a session cookie is also sent', async () => {
    const { jar } = await login();
    const provisioned = await send('POST', '/api/users/tokens/provision/', { json: { username: 'alice', password: PASSWORD } });
    expect(provisioned.status).toBe(201);
    const res = await send('POST', '/api/tenancy/tenants/', { jar, json: { name: 'Token Tenant', slug: 'token-tenant' }, headers: token(provisioned.json.key) });
    expect(res.status).toBe(201);
  });

  test('when the session cookie is tampered with, then the request is anonymous', async () => {
    const { jar } = await login();
    const value = jar.cookies.get('sessionid')!;
    const [, sid, iat, exp, sig] = value.split('.');
    const bobId = (await stack.client('users').get('/api/users/users/?username=bob')).body.results[0].id;
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    const tampered = [
      [bobId, sid, iat, exp, sig].join('.'), // another user, same signature
      [aliceId, sid, iat, String(Number(exp) + 3600), sig].join('.'), // longer life
      [aliceId, sid, iat, exp, flip(sig)].join('.'), // bad signature
      value.slice(0, -1), // truncated
      'garbage',
    ];
    // a well-formed cookie signed with another secret
    const foreign = new SessionCodec(Buffer.from('another-secret-0123456789'));
    tampered.push(foreign.encode({ userId: aliceId, sid: 'A'.repeat(22), issuedAt: Math.floor(Date.now() / 1000), expires: Math.floor(Date.now() / 1000) + 3600 }));
    for (const cookie of tampered) {
      const j = new Jar();
      j.cookies.set('sessionid', cookie);
      j.cookies.set('csrftoken', jar.cookies.get('csrftoken')!);
      const read = await send('GET', '/api/tenancy/tenants/', { jar: j, headers: { accept: 'application/json' } });
      expect(read.status).toBe(403);
      const write = await send('POST', '/api/tenancy/tenants/', { jar: j, json: { name: 'T', slug: 't' }, headers: { 'x-csrftoken': jar.cookies.get('csrftoken')! } });
      expect(write.status).toBe(403);
      expect(write.json).toEqual({ detail: 'Authentication credentials were not provided.' });
      expect((await send('GET', '/api/', { jar: j })).text).toContain('>Log in</a>');
    }
  });

  test('when the user is deactivated, then the session stops working once the change event arrives', async () => {
    const admin = stack.client('users');
    const carol = await admin.post('/api/users/users/', { username: 'carol', password: 'carol-password-1' });
    await admin.post('/api/users/permissions/', { name: 'carol tenants', object_types: ['tenancy.tenant'], actions: ['view'], users: [carol.body.id] });
    const { jar } = await login('carol', 'carol-password-1');
    expect((await send('GET', '/api/tenancy/tenants/', { jar, headers: { accept: 'application/json' } })).status).toBe(200);
    expect((await admin.patch(`/api/users/users/${carol.body.id}/`, { is_active: false })).status).toBe(200);
    // written to users directly, not through this gateway: its cached session user goes with the event
    await eventually(async () => (await send('GET', '/api/tenancy/tenants/', { jar, headers: { accept: 'application/json' } })).status === 403);
  });
});

describe('the API tokens page', () => {
  test('when not signed in, then the page redirects to the login with next', async () => {
    const r = await send('GET', '/user/api-tokens/', {});
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe('/login/?next=%2Fuser%2Fapi-tokens%2F');
    expect((await send('POST', '/user/api-tokens/', { form: { description: 'x' } })).status).toBe(302);
  });

  test('when a token is created, then its key is shown once, works, is masked afterwards, and deleting it revokes it', async () => {
    const { jar } = await login();
    const empty = await send('GET', '/user/api-tokens/', { jar });
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('<input type="datetime-local" id="id_expires" name="expires"');
    expect(empty.text).toContain('name="write_enabled" value="on" checked');

    const description = 'CI <b>"runner"</b> & co';
    const created = await send('POST', '/user/api-tokens/', {
      jar,
      form: { csrfmiddlewaretoken: csrfField(empty.text), expires: '2099-12-31T23:30', write_enabled: 'on', description },
    });
    expect(created.status).toBe(201);
    const key = /<code id="new-token-key">([0-9a-f]{40})<\/code>/.exec(created.text)?.[1];
    expect(key).toBeDefined();
    expect(created.text).toContain("it won't be shown again");
    expect(created.text).toContain('CI &lt;b&gt;&quot;runner&quot;&lt;/b&gt; &amp; co');
    expect(created.text).not.toContain('<b>"runner"</b>');

    const mine = await send('GET', '/api/users/tokens/?description=' + encodeURIComponent(description), { headers: token(key!) });
    expect(mine.status).toBe(200);
    expect(mine.json.results[0]).toMatchObject({ write_enabled: true, expires: expect.stringMatching(/^2099-12-31T23:30:00/), user: { id: aliceId } });
    const tenants = await send('GET', '/api/tenancy/tenants/', { headers: token(key!) });
    expect(tenants.status).toBe(200);

    const again = await send('GET', '/user/api-tokens/', { jar });
    expect(again.text).not.toContain(key!);
    expect(again.text).toContain(`<code>********${key!.slice(-6)}</code>`);
    const id = mine.json.results[0].id;
    expect(again.text).toContain(`action="/user/api-tokens/${id}/delete/"`);

    const noCsrf = await send('POST', `/user/api-tokens/${id}/delete/`, { jar, form: {} });
    expect(noCsrf.status).toBe(403);
    expect((await send('GET', '/api/tenancy/tenants/', { headers: token(key!) })).status).toBe(200);

    const deleted = await send('POST', `/user/api-tokens/${id}/delete/`, { jar, form: { csrfmiddlewaretoken: csrfField(again.text) } });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('location')).toBe('/user/api-tokens/');
    const gone = await send('GET', '/api/tenancy/tenants/', { headers: token(key!) });
    expect(gone.status).toBe(403);
    expect(gone.json).toEqual({ detail: 'Invalid token' });
    expect((await send('GET', '/user/api-tokens/', { jar })).text).not.toContain(key!.slice(-6));
  });

  test('when the form is invalid or forged, then the errors are shown and nothing is created', async () => {
    const { jar } = await login();
    const page = await send('GET', '/user/api-tokens/', { jar });
    const csrf = csrfField(page.text);
    const tooLong = await send('POST', '/user/api-tokens/', { jar, form: { csrfmiddlewaretoken: csrf, description: 'd'.repeat(201) } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.text).toMatch(/description: Ensure this field has no more than 200 characters\./);
    expect(tooLong.text).not.toContain('new-token-key');
    const badDate = await send('POST', '/user/api-tokens/', { jar, form: { csrfmiddlewaretoken: csrf, expires: 'next tuesday' } });
    expect(badDate.status).toBe(400);
    expect(badDate.text).toContain('expires: Datetime has wrong format.');
    expect(badDate.text).toContain('value="next tuesday"');
    const forged = await send('POST', '/user/api-tokens/', { jar, form: { description: 'forged' } });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain('CSRF verification failed. Request aborted.');
    const readOnly = await send('POST', '/user/api-tokens/', { jar, form: { csrfmiddlewaretoken: csrf, description: 'read only' } });
    expect(readOnly.status).toBe(201);
    const listed = await stack.client('users').get(`/api/users/tokens/?user_id=${aliceId}&description=read%20only`);
    expect(listed.body.results[0].write_enabled).toBe(false);
    expect((await stack.client('users').get(`/api/users/tokens/?user_id=${aliceId}&description=forged`)).body.count).toBe(0);
  });

  test("when deleting another user's token through the page, then it is not found and the token stays", async () => {
    const bobToken = await stack.client('users').post('/api/users/tokens/', { user: (await stack.client('users').get('/api/users/users/?username=bob')).body.results[0].id });
    expect(bobToken.status).toBe(201);
    const { jar } = await login();
    const page = await send('GET', '/user/api-tokens/', { jar });
    expect(page.text).not.toContain(bobToken.body.key.slice(-6));
    const r = await send('POST', `/user/api-tokens/${bobToken.body.id}/delete/`, { jar, form: { csrfmiddlewaretoken: csrfField(page.text) } });
    expect(r.status).toBe(404);
    expect((await stack.client('users').get(`/api/users/tokens/${bobToken.body.id}/`)).status).toBe(200);
  });
});

describe('session and CSRF building blocks', () => {
  const codec = new SessionCodec(Buffer.from('k'.repeat(32)));
  const now = Math.floor(Date.now() / 1000);
  const claims = { userId: 7, sid: 'abcdefghijklmnopqrstuv', issuedAt: now, expires: now + 60 };

  test('when a cookie value is signed, then it decodes; when expired or altered, then it does not', () => {
    expect(codec.decode(codec.encode(claims))).toEqual(claims);
    expect(codec.decode(codec.encode({ ...claims, expires: now - 1 }))).toBeNull();
    expect(codec.decode(codec.encode(claims).replace(/^7\./, '8.'))).toBeNull();
    expect(codec.decode(undefined)).toBeNull();
  });

  test('when SESSION_SECRET is unset, then a stable secret is derived from INTERNAL_TOKEN_SECRET that differs from it', () => {
    const a = sessionSecret({ INTERNAL_TOKEN_SECRET: 'internal-secret-0123456789' });
    expect(a.equals(sessionSecret({ INTERNAL_TOKEN_SECRET: 'internal-secret-0123456789' }))).toBe(true);
    expect(a.toString('utf8')).not.toContain('internal-secret');
    expect(sessionSecret({ INTERNAL_TOKEN_SECRET: 'x', SESSION_SECRET: 'configured-session-secret' }).toString()).toBe('configured-session-secret');
  });

  test('when CSRF tokens are checked, then only the bound session token or a signed, matching anonymous token passes', () => {
    const csrf = new CsrfTokens(Buffer.from('c'.repeat(32)));
    expect(csrf.checkSession('sid-1', csrf.forSession('sid-1'))).toBe(true);
    expect(csrf.checkSession('sid-2', csrf.forSession('sid-1'))).toBe(false);
    expect(csrf.checkSession('sid-1', undefined)).toBe(false);
    const anon = csrf.issueAnonymous();
    expect(csrf.checkAnonymous(anon, anon)).toBe(true);
    expect(csrf.checkAnonymous(undefined, anon)).toBe(false);
    const forged = `${'A'.repeat(22)}.${'B'.repeat(43)}`;
    expect(csrf.checkAnonymous(forged, forged)).toBe(false);
  });

  test('when next, expires, keys and cookies are parsed, then unsafe or odd values are handled', () => {
    expect(safeNext('/user/api-tokens/')).toBe('/user/api-tokens/');
    for (const bad of ['//evil.example', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)', '/a b', '', undefined]) expect(safeNext(bad)).toBe('/api/');
    expect(expiresFromForm('2030-01-31T12:00')).toBe('2030-01-31T12:00:00Z');
    expect(expiresFromForm('2030-01-31T12:00:05')).toBe('2030-01-31T12:00:05Z');
    expect(expiresFromForm('  ')).toBeNull();
    expect(maskedKey({ id: 1, key: '0123456789abcdef0123456789abcdef01234567' })).toBe('********234567');
    expect(maskedKey({ id: 1, display: `${'*'.repeat(34)}abcdef` })).toBe('********abcdef');
    expect(parseCookies('a=1; sessionid="x.y"; a=2; bad; csrftoken=%41')).toEqual({ a: '1', sessionid: 'x.y', csrftoken: 'A' });
  });
});

describe('in a real browser', () => {
  let context: BrowserContext | undefined;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let shots = '';

  beforeAll(async () => {
    browser = await launchChromium();
    context = browser.context;
    shots = await mkdtemp(path.join(os.tmpdir(), 'inventory-browser-shots-'));
  }, 11 * 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  test('when a user signs in and manages a token in the pages, then the shown key works until it is deleted in the page', async () => {
    const page = context!.pages()[0] ?? (await context!.newPage());
    page.setDefaultTimeout(20_000);

    await page.goto(`${base}/login/`);
    await page.fill('#id_username', 'alice');
    await page.fill('#id_password', PASSWORD);
    await Promise.all([page.waitForURL(`${base}/api/`), page.click('button[type=submit]')]);
    expect(await page.textContent('body')).toContain('Signed in as alice');

    await Promise.all([page.waitForURL(`${base}/user/api-tokens/`), page.click('text=API tokens')]);
    const description = `browser token ${Date.now()}`;
    await page.fill('#id_description', description);
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Create token")')]);
    const key = ((await page.textContent('#new-token-key')) ?? '').trim();
    expect(key).toMatch(/^[0-9a-f]{40}$/);
    const shot = path.join(shots, 'api-tokens.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(existsSync(shot)).toBe(true);

    const ok = await fetch(`${base}/api/tenancy/tenants/`, { headers: token(key) });
    expect(ok.status).toBe(200);

    await page.goto(`${base}/user/api-tokens/`);
    expect(await page.content()).not.toContain(key);
    const row = page.locator('tr', { hasText: description });
    await expect(row.locator('code').textContent()).resolves.toBe(`********${key.slice(-6)}`);
    await Promise.all([page.waitForURL(`${base}/user/api-tokens/`), row.locator('button:has-text("Delete")').click()]);
    await page.waitForLoadState('load');
    expect(await page.locator('tr', { hasText: description }).count()).toBe(0);

    const after = await fetch(`${base}/api/tenancy/tenants/`, { headers: token(key) });
    expect(after.status).toBe(403);
    expect(await after.json()).toEqual({ detail: 'Invalid token' });
  }, 120_000);
});
