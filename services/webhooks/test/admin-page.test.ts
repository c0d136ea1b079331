import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { bootStack, eventually, launchChromium, type Client, type Stack } from '@inventory/testkit';
import { stackGateway } from '@inventory/gateway';
import { createService as users } from '@inventory/users';
import { createService as tenancy } from '@inventory/tenancy';
import { createService as extras } from '@inventory/extras';
import { createService as webhooks } from '@inventory/webhooks';

/**
 * The webhooks admin page at /admin/webhooks/, through the gateway, against
 * the real users, tenancy, extras and webhooks services, RabbitMQ and a real
 * receiver: who gets in (HTTP level), what it shows, and retries from it in a
 * real headless Chromium.
 */

const PASSWORDS = { ops: 'ops-password-1', watcher: 'watcher-password-1', plain: 'plain-password-1' };
/** What the receiver answers on failure: markup in it must be shown as text, never run. */
const FAILURE_TEXT = 'receiver down <script>alert("x")</script> & retry later';

let stack: Stack;
let base: string;
let hooks: Client;
let ten: Client;
let receiver: Server;
let receiverUrl: string;
/** The receiver's answer status, switched by the tests. */
let receiverStatus = 500;
const received: string[] = [];
const keys: Record<string, string> = {};

const gateway = stackGateway({ TOKEN_CACHE_SECONDS: '30' });

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(req.url ?? '');
      res.statusCode = receiverStatus;
      res.setHeader('Content-Type', 'text/plain');
      res.end(receiverStatus === 200 ? 'thanks' : FAILURE_TEXT);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  stack = await bootStack({
    users,
    tenancy,
    extras,
    webhooks: (config) => webhooks({ ...config, WEBHOOK_RETRY_SCHEDULE: '0.2,0.4' }),
    gateway,
  }, {}, { template: true });
  base = stack.urls.gateway;
  hooks = stack.client('webhooks');
  ten = stack.client('tenancy');

  const admin = stack.client('users');
  const make = async (username: keyof typeof PASSWORDS, isStaff: boolean) => {
    const u = await admin.post('/api/users/users/', { username, password: PASSWORDS[username], is_staff: isStaff });
    expect(u.status).toBe(201);
    return u.body.id as number;
  };
  const ops = await make('ops', true);
  await make('watcher', true);
  const plain = await make('plain', false);
  // ops may retry (as with the REST endpoints); watcher is staff with no permission; plain may read deliveries but is no staff
  expect((await admin.post('/api/users/permissions/', { name: 'ops deliveries', object_types: ['extras.webhookdelivery'], actions: ['view', 'change'], users: [ops, plain] })).status).toBe(201);
  for (const username of Object.keys(PASSWORDS) as Array<keyof typeof PASSWORDS>) {
    const provisioned = await fetch(`${base}/api/users/tokens/provision/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ username, password: PASSWORDS[username] }),
    });
    expect(provisioned.status).toBe(201);
    keys[username] = ((await provisioned.json()) as { key: string }).key;
  }
  const hook = await hooks.post('/api/extras/webhooks/', { name: 'Tenant feed <b>', content_types: ['tenancy.tenant'], type_create: true, payload_url: `${receiverUrl}/tenants/{{ data.slug }}` });
  expect(hook.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await new Promise((r) => receiver?.close(r));
});

/** Creates a tenant while the receiver answers 500 and waits until its delivery is failed (three attempts); its id. */
async function failedDelivery(slug: string): Promise<number> {
  receiverStatus = 500;
  const t = await ten.post('/api/tenancy/tenants/', { name: slug, slug });
  expect(t.status).toBe(201);
  let id = 0;
  await eventually(async () => {
    const log = await hooks.get(`/api/extras/webhook-deliveries/?object_id=${t.body.id}&status=failed`);
    id = log.body.results?.[0]?.id ?? 0;
    return id > 0;
  }, 20_000, `the delivery for ${slug} to fail`);
  return id;
}

const deliveryStatus = async (id: number): Promise<string> => (await hooks.get(`/api/extras/webhook-deliveries/${id}/`)).body.status.value;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function send(method: string, url: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const res = await fetch(base + url, { method, headers, body, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const html = { accept: 'text/html,application/xhtml+xml' };
const json = { accept: 'application/json' };
const token = (who: string, accept = json) => ({ ...accept, authorization: `Token ${keys[who]}` });

/** A session through the login form, as a browser gets one: the cookie header and the CSRF token. */
async function session(username: keyof typeof PASSWORDS): Promise<{ cookie: string; csrf: string }> {
  const form = await send('GET', '/login/', html);
  const anonymousCsrf = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(form.text)![1];
  const cookies = (res: Answer) => res.headers.getSetCookie().map((c) => c.split(';')[0]);
  const login = await send('POST', '/login/', { ...html, 'content-type': 'application/x-www-form-urlencoded', cookie: cookies(form).join('; ') },
    new URLSearchParams({ csrfmiddlewaretoken: anonymousCsrf, username, password: PASSWORDS[username], next: '/admin/webhooks/' }).toString());
  expect(login.status).toBe(302);
  expect(login.headers.get('location')).toBe('/admin/webhooks/');
  const jar = Object.fromEntries(cookies(login).map((c) => [c.slice(0, c.indexOf('=')), c.slice(c.indexOf('=') + 1)]));
  return { cookie: `sessionid=${jar.sessionid}; csrftoken=${jar.csrftoken}`, csrf: jar.csrftoken };
}

describe('who may open the page', () => {
  test('when nobody is signed in, then a browser is sent to the login page with next, and a script gets 403', async () => {
    const browser = await send('GET', '/admin/webhooks/', html);
    expect(browser.status).toBe(302);
    expect(browser.headers.get('location')).toBe('/login/?next=%2Fadmin%2Fwebhooks%2F');
    const script = await send('GET', '/admin/webhooks/', json);
    expect(script.status).toBe(403);
    expect(JSON.parse(script.text)).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect((await send('GET', '/admin/webhooks/stats/', json)).status).toBe(403);
    expect((await send('POST', '/admin/webhooks/retry/', json)).status).toBe(403);
    expect((await send('GET', '/admin/webhooks', html)).headers.get('location')).toBe('/admin/webhooks/');
  });

  test('when a token of a user who is not staff is sent, then 403, even with a permission on deliveries', async () => {
    const r = await send('GET', '/admin/webhooks/', token('plain'));
    expect(r.status).toBe(403);
    expect(JSON.parse(r.text)).toEqual({ detail: 'You do not have permission to perform this action.' });
    expect((await send('GET', '/admin/webhooks/', token('plain', html))).text).toContain('Forbidden (403)');
    expect((await send('POST', '/admin/webhooks/retry/', token('plain'))).status).toBe(403);
    // the service checks staff itself too: a user identity signed for it does not get past it
    const direct = await hooks.get('/admin/webhooks/', { identity: { user: { id: 99, username: 'x', is_staff: false, is_superuser: false, is_active: true }, token: null, permissions: [] } });
    expect(direct.status).toBe(403);
  });

  test('when a staff token is sent, then the page is served, never cached or framed, and the stats come as JSON', async () => {
    const page = await send('GET', '/admin/webhooks/', token('ops', html));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.text).toContain('<h1>Webhooks</h1>');
    expect(page.text).toContain('Signed in as <strong>ops</strong>');
    expect(page.text).not.toContain('csrfmiddlewaretoken'); // a token caller needs none
    const stats = await send('GET', '/admin/webhooks/stats/', token('ops'));
    expect(stats.status).toBe(200);
    const body = JSON.parse(stats.text);
    expect(body.queues.available).toBe(true);
    expect(body.queues.queues.map((q: { queue: string }) => q.queue)).toEqual(['webhooks.events', 'webhooks.deliveries', 'webhooks.retry.200', 'webhooks.retry.400', 'webhooks.dead', 'webhooks.park']);
    for (const q of body.queues.queues) expect(q).toMatchObject({ messages: expect.any(Number), consumers: expect.any(Number) });
    expect(body.queues.queues.find((q: { queue: string }) => q.queue === 'webhooks.deliveries').consumers).toBeGreaterThan(0);
    expect(Object.keys(body.deliveries.statuses)).toEqual(['queued', 'succeeded', 'retrying', 'failed']);
    expect(body.deliveries.rates.map((r: { minutes: number }) => r.minutes)).toEqual([5, 60]);
    expect(body.deliveries.failures).toEqual({ count: expect.any(Number), results: expect.any(Array) });
  });

  test('when a session posts to the page without the CSRF token, then 403; with it, then the retry is done', async () => {
    const id = await failedDelivery('csrf-check');
    const { cookie, csrf } = await session('ops');
    const page = await send('GET', '/admin/webhooks/', { ...html, cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<input type="hidden" name="csrfmiddlewaretoken" value="${csrf}">`);
    const form = { ...html, cookie, 'content-type': 'application/x-www-form-urlencoded' };
    const without = await send('POST', `/admin/webhooks/deliveries/${id}/retry/`, form, '');
    expect(without.status).toBe(403);
    expect(without.text).toContain('CSRF Failed: CSRF token missing or incorrect.');
    const wrong = await send('POST', '/admin/webhooks/retry/', form, `csrfmiddlewaretoken=${'x'.repeat(43)}`);
    expect(wrong.status).toBe(403);
    expect(await deliveryStatus(id)).toBe('failed');
    expect((await send('POST', '/admin/webhooks/retry/', { ...json, cookie })).status).toBe(403);

    receiverStatus = 200;
    const ok = await send('POST', `/admin/webhooks/deliveries/${id}/retry/`, form, new URLSearchParams({ csrfmiddlewaretoken: csrf }).toString());
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/admin/webhooks/?retried=1');
    await eventually(async () => (await deliveryStatus(id)) === 'succeeded', 15_000, 'the retried delivery');
  });

  test('when a staff user without the change permission on deliveries opens the page, then the buttons are disabled and a retry is refused', async () => {
    const id = await failedDelivery('watched');
    const page = await send('GET', '/admin/webhooks/', token('watcher', html));
    expect(page.status).toBe(200);
    expect(page.text).toMatch(new RegExp(`id="retry-${id}" disabled`));
    const refused = await send('POST', `/admin/webhooks/deliveries/${id}/retry/`, token('watcher'));
    expect(refused.status).toBe(403);
    expect(await deliveryStatus(id)).toBe('failed');
    receiverStatus = 200;
    const byScript = await send('POST', `/admin/webhooks/deliveries/${id}/retry/`, token('ops'));
    expect(byScript.status).toBe(200);
    expect(JSON.parse(byScript.text)).toEqual({ retried: 1 });
    await eventually(async () => (await deliveryStatus(id)) === 'succeeded', 15_000, 'the retried delivery');
  });

  test('when the input is odd, then 404, 405 or a page that ignores it, never a 500', async () => {
    const ops = token('ops');
    for (const p of ['/admin/webhooks/deliveries/abc/retry/', '/admin/webhooks/deliveries/99999999999999999999/retry/', '/admin/webhooks/deliveries/-1/retry/']) {
      expect([p, (await send('POST', p, ops)).status]).toEqual([p, 404]);
    }
    expect(JSON.parse((await send('POST', '/admin/webhooks/deliveries/987654/retry/', ops)).text)).toEqual({ retried: 0 });
    expect((await send('GET', '/admin/webhooks/nothing-here/', ops)).status).toBe(404);
    expect((await send('GET', '/admin/webhooks/%2e%2e/%2e%2e/internal/openapi/', ops)).status).toBe(404);
    expect((await send('GET', '/admin/nothing/', ops)).status).toBe(404);
    const put = await send('PUT', '/admin/webhooks/', ops);
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD');
    expect((await send('GET', '/admin/webhooks/retry/', ops)).status).toBe(405);
    const notice = await send('GET', '/admin/webhooks/?retried=%3Cscript%3E', token('ops', html));
    expect(notice.status).toBe(200);
    expect(notice.text).not.toContain('<script>');
    expect(notice.text).not.toContain('queued for another attempt');
    expect((await send('GET', '/admin/webhooks/?retried=0', token('ops', html))).text).toContain('No failed delivery matched');
    const form = await send('POST', '/admin/webhooks/deliveries/987655/retry/', { ...ops, 'content-type': 'application/x-www-form-urlencoded' }, '%zz=%%&a[b]=c');
    expect(form.status).toBe(200);
    expect(JSON.parse(form.text)).toEqual({ retried: 0 });
  });
});

describe('in a real browser', () => {
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(20_000);
  }, 11 * 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  const failureRow = (id: number) => page.locator(`tr[data-delivery-id="${id}"]`);

  test('when staff signs in and opens the page, then it shows the queues and the failure with the receiver\'s answer; a Retry sends it again and it succeeds', async () => {
    const id = await failedDelivery('browser-one');
    const before = received.filter((u) => u === '/tenants/browser-one').length;
    expect(before).toBe(3);

    // not signed in: the page sends the browser to the login form, which comes back to it
    await page.goto(`${base}/admin/webhooks/`);
    expect(new URL(page.url()).pathname).toBe('/login/');
    await page.fill('#id_username', 'ops');
    await page.fill('#id_password', PASSWORDS.ops);
    await Promise.all([page.waitForURL(`${base}/admin/webhooks/`), page.click('button[type=submit]')]);
    expect(await page.textContent('h1')).toBe('Webhooks');

    // queue depths, as RabbitMQ gives them
    for (const q of ['webhooks.events', 'webhooks.deliveries', 'webhooks.retry.200', 'webhooks.retry.400', 'webhooks.dead']) {
      await expect(page.locator(`#queues tr[data-queue="${q}"] td.n`).first().textContent()).resolves.toMatch(/^\d+$/);
    }
    expect(Number(await page.locator('#statuses td[data-status="failed"]').textContent())).toBeGreaterThanOrEqual(1);
    expect(await page.locator('#rates tr[data-window="5"]').count()).toBe(1);

    // the failure, with what the receiver answered, shown as text (its markup escaped, not run)
    const row = failureRow(id);
    await expect(row.locator('td.answer').textContent()).resolves.toContain('HTTP 500');
    await expect(row.locator('td.response').textContent()).resolves.toBe(FAILURE_TEXT);
    expect(await row.textContent()).toContain('Tenant feed <b>');
    expect(await page.locator('script').count()).toBe(0);

    // the receiver is fixed; Retry
    receiverStatus = 200;
    await Promise.all([page.waitForURL(`${base}/admin/webhooks/?retried=1`), row.locator('button:has-text("Retry")').click()]);
    expect(await page.textContent('.notice')).toContain('1 delivery queued for another attempt.');
    await eventually(() => received.filter((u) => u === '/tenants/browser-one').length === 4, 15_000, 'the receiver to get the retry');
    await eventually(async () => (await deliveryStatus(id)) === 'succeeded', 15_000, 'the log to say succeeded');
    const log = await send('GET', `/api/extras/webhook-deliveries/${id}/`, token('ops'));
    expect(JSON.parse(log.text)).toMatchObject({ status: { value: 'succeeded' }, attempt_count: 4 });

    await page.reload();
    expect(await failureRow(id).count()).toBe(0);
  }, 120_000);

  test('when several deliveries failed, then "Retry all failed" sends every one again', async () => {
    const ids = [await failedDelivery('browser-two'), await failedDelivery('browser-three')];
    await page.goto(`${base}/admin/webhooks/`);
    for (const id of ids) expect(await failureRow(id).count()).toBe(1);
    receiverStatus = 200;
    await Promise.all([page.waitForURL(/\/admin\/webhooks\/\?retried=\d+$/), page.click('#retry-all')]);
    expect(await page.textContent('.notice')).toMatch(/\d+ deliveries queued for another attempt\./);
    for (const id of ids) await eventually(async () => (await deliveryStatus(id)) === 'succeeded', 15_000, `delivery ${id} to succeed`);
    await page.goto(`${base}/admin/webhooks/`);
    for (const id of ids) expect(await failureRow(id).count()).toBe(0);
    expect(await page.locator('#retry-all').count()).toBe(0);
    expect(await page.textContent('#statuses td[data-status="failed"]')).toBe('0');
  }, 120_000);
});
