import { pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto';
import { hash as argon2Hash } from '@node-rs/argon2';
import { readConfig } from '@inventory/core';
import { bootStack, type Client, type Stack } from '@inventory/testkit';
import { createService, usersConfig } from '@inventory/users';
import { createGateway, gatewayConfig } from '@inventory/gateway';
import { PASSWORD, createUser, dbRow } from './helpers';

/**
 * Password sign-in against the real users service behind a real gateway:
 * hashes of older formats (this service's scrypt, NetBox's PBKDF2) are
 * accepted and replaced by argon2id; the rate limits (per username, per
 * client address, per window) answer 429 with Retry-After. The gateway
 * trusts 127.0.0.1 as a proxy, so each test picks its client address with
 * X-Forwarded-For.
 */

const LIMIT_USERNAME = 3;
const LIMIT_ADDRESS = 6;
const WINDOW_SECONDS = 2;
const ARGON2ID = /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/;

let stack: Stack;
let api: Client;
let gateway: string;

beforeAll(async () => {
  stack = await bootStack({
    // the test kit's config is a plain BaseConfig: the users variables are read on top, as deploy/start.js does
    users: (cfg) =>
      createService(
        readConfig(usersConfig, {
          ...cfg,
          AUTH_RATE_LIMIT_USERNAME: String(LIMIT_USERNAME),
          AUTH_RATE_LIMIT_ADDRESS: String(LIMIT_ADDRESS),
          AUTH_RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
        } as unknown as NodeJS.ProcessEnv),
      ),
    gateway: (cfg) =>
      createGateway(
        readConfig(gatewayConfig, {
          INTERNAL_TOKEN_SECRET: cfg.INTERNAL_TOKEN_SECRET,
          SERVICE_URLS: cfg.SERVICE_URLS,
          PORT: String(cfg.PORT),
          LOG_LEVEL: 'silent',
          TRUSTED_PROXIES: '127.0.0.1/32',
        }),
      ),
  }, {}, { template: true });
  api = stack.client('users');
  gateway = stack.urls.gateway;
});
afterAll(() => stack?.stop());

let nextAddress = 1;
/** A client address of its own for each caller, so the per-address limit of one test does not touch another. */
function address(): string {
  return `198.51.100.${nextAddress++}`;
}

async function provision(from: string, username: string, password: string): Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> }> {
  const res = await fetch(`${gateway}/api/users/tokens/provision/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify({ username, password }),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
}

async function storedHash(username: string): Promise<string> {
  return String((await dbRow(stack, 'SELECT password FROM users."user" WHERE username = $1', [username]))?.password);
}

async function setHash(username: string, hash: string): Promise<void> {
  await dbRow(stack, 'UPDATE users."user" SET password = $1 WHERE username = $2', [hash, username]);
}

/** Django's PBKDF2PasswordHasher format (NetBox); 1000 iterations keeps the test fast and Django accepts it too. */
function djangoPbkdf2(password: string, iterations = 1000): string {
  const salt = randomBytes(16).toString('base64url').replace(/[^A-Za-z0-9]/g, 'x').slice(0, 22);
  return `pbkdf2_sha256$${iterations}$${salt}$${pbkdf2Sync(password, salt, iterations, 32, 'sha256').toString('base64')}`;
}

/** What this service stored before argon2id. */
function oldScrypt(password: string): string {
  const salt = randomBytes(16);
  return ['scrypt', 16384, 8, 1, salt.toString('base64'), scryptSync(password, salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64')].join('$');
}

const THROTTLED = /^Request was throttled\. Expected available in (\d+) seconds\.$/;

describe('password hashes', () => {
  test('when a user moved from NetBox (PBKDF2 hash) provisions a token through the gateway, then it works and the hash becomes argon2id', async () => {
    await createUser(api, 'netbox-user');
    await setHash('netbox-user', djangoPbkdf2(PASSWORD));
    const from = address();
    expect((await provision(from, 'netbox-user', 'wrong-password')).status).toBe(403);
    expect(await storedHash('netbox-user')).toMatch(/^pbkdf2_sha256\$1000\$/); // a failure changes nothing
    const res = await provision(from, 'netbox-user', PASSWORD);
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(/^[0-9a-f]{40}$/);
    expect(await storedHash('netbox-user')).toMatch(ARGON2ID);
    // and the new hash verifies
    expect((await provision(from, 'netbox-user', PASSWORD)).status).toBe(201);
  });

  test('when a user with an old scrypt hash provisions a token, then it works and the hash becomes argon2id', async () => {
    await createUser(api, 'scrypt-user');
    await setHash('scrypt-user', oldScrypt(PASSWORD));
    const res = await provision(address(), 'scrypt-user', PASSWORD);
    expect(res.status).toBe(201);
    expect(await storedHash('scrypt-user')).toMatch(ARGON2ID);
  });

  test('when a user with a weaker argon2 or a PBKDF2 hash signs in through the browser login, then the hash becomes argon2id', async () => {
    const internal = stack.serviceClient('users');
    const weak = await argon2Hash(PASSWORD, { memoryCost: 4096, timeCost: 1, parallelism: 1 });
    expect(weak).toMatch(/^\$argon2id\$v=19\$m=4096,t=1,p=1\$/);
    for (const [username, hash] of [['browser-user', djangoPbkdf2(PASSWORD, 1200)], ['weak-argon2', weak]]) {
      await createUser(api, username);
      await setHash(username, hash);
      const login = await internal.post('/internal/auth/password', { username, password: PASSWORD, client_ip: address() });
      expect(login.status).toBe(200);
      expect(await storedHash(username)).toMatch(ARGON2ID);
    }
    // a current hash is left alone
    const before = await storedHash('weak-argon2');
    expect((await internal.post('/internal/auth/password', { username: 'weak-argon2', password: PASSWORD, client_ip: address() })).status).toBe(200);
    expect(await storedHash('weak-argon2')).toBe(before);
  });

  test('when a stored hash is malformed, unusable or has absurd parameters, then sign-in fails without an error', async () => {
    const hashes = [
      '!unusable',
      'pbkdf2_sha256$999999999$salt$AAAA',
      `pbkdf2_sha256$1000$salt$${'A'.repeat(44)}`,
      'scrypt$1048577$8$1$AA==$AA==',
      '$argon2id$v=19$m=4194304,t=2,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      'md5$x$y',
    ];
    for (const [i, hash] of hashes.entries()) {
      await createUser(api, `odd-hash-${i}`);
      await setHash(`odd-hash-${i}`, hash);
      expect((await provision(address(), `odd-hash-${i}`, PASSWORD)).status).toBe(403);
    }
  });
});

describe('rate limits', () => {
  test('when one username fails too often, then it gets 429 with Retry-After (even with the right password), while others still sign in', async () => {
    await createUser(api, 'target');
    await createUser(api, 'bystander');
    const from = address();
    for (let i = 0; i < LIMIT_USERNAME; i++) expect((await provision(from, 'target', `guess-${i}`)).status).toBe(403);
    // from another address too: the limit is the username's
    const throttled = await provision(address(), 'target', PASSWORD);
    expect(throttled.status).toBe(429);
    expect(throttled.body.detail).toMatch(THROTTLED);
    const seconds = Number(THROTTLED.exec(String(throttled.body.detail))![1]);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(throttled.retryAfter).toBe(String(seconds));
    // another username from another address is not concerned
    expect((await provision(address(), 'bystander', PASSWORD)).status).toBe(201);
  });

  test('when the window has passed, then the throttled username signs in again', async () => {
    await createUser(api, 'patient');
    const from = address();
    for (let i = 0; i < LIMIT_USERNAME; i++) await provision(from, 'patient', 'nope');
    const throttled = await provision(from, 'patient', PASSWORD);
    expect(throttled.status).toBe(429);
    await new Promise((r) => setTimeout(r, Number(throttled.retryAfter) * 1000 + 100));
    expect((await provision(from, 'patient', PASSWORD)).status).toBe(201);
  });

  test('when successful sign-ins are many, then they do not count against the username', async () => {
    await createUser(api, 'regular-user');
    for (let i = 0; i < LIMIT_USERNAME + 2; i++) expect((await provision(address(), 'regular-user', PASSWORD)).status).toBe(201);
  });

  test('when one address makes too many attempts, then it gets 429 for any username, while other addresses do not', async () => {
    await createUser(api, 'fresh-user');
    const from = address();
    // different unknown usernames: only the address limit can be reached
    for (let i = 0; i < LIMIT_ADDRESS; i++) expect((await provision(from, `nobody-${i}`, 'x')).status).toBe(403);
    const throttled = await provision(from, 'fresh-user', PASSWORD);
    expect(throttled.status).toBe(429);
    expect(throttled.body.detail).toMatch(THROTTLED);
    expect(Number(throttled.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await provision(address(), 'fresh-user', PASSWORD)).status).toBe(201);
  });

  test('when the browser login is throttled, then the form shows the 429 with Retry-After', async () => {
    await createUser(api, 'browser-throttled');
    const from = address();
    const form = await fetch(`${gateway}/login/`, { headers: { 'x-forwarded-for': from } });
    const cookie = form.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const csrf = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(await form.text())![1];
    const login = (password: string) =>
      fetch(`${gateway}/login/`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, 'x-forwarded-for': from },
        body: new URLSearchParams({ csrfmiddlewaretoken: csrf, username: 'browser-throttled', password, next: '/api/' }).toString(),
      });
    for (let i = 0; i < LIMIT_USERNAME; i++) expect((await login('wrong')).status).toBe(403);
    const throttled = await login(PASSWORD);
    expect(throttled.status).toBe(429);
    const seconds = Number(throttled.headers.get('retry-after'));
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(await throttled.text()).toContain(`Request was throttled. Expected available in ${seconds} seconds.`);
    expect(throttled.headers.getSetCookie().some((c) => c.startsWith('sessionid='))).toBe(false);
  });
});
