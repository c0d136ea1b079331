import { Cache, baseConfig, readConfig, ConfigError, createApp, createLogger, listen, ValidationError, NotFound, Conflict, currentContext } from '@inventory/core';

describe('configuration', () => {
  const good = { DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db', INTERNAL_TOKEN_SECRET: 'x'.repeat(32) };

  test('when every value is valid, then defaults fill the rest', () => {
    const c = readConfig(baseConfig, good);
    expect(c.PAGINATE_COUNT).toBe(50);
    expect(c.MAX_PAGE_SIZE).toBe(1000);
    expect(c.STRICT_FILTERING).toBe(false);
  });

  test('when a value is missing or wrong, then the error names the variable', () => {
    expect(() => readConfig(baseConfig, { INTERNAL_TOKEN_SECRET: 'x'.repeat(32) })).toThrow(/DATABASE_URL/);
    expect(() => readConfig(baseConfig, { ...good, PAGINATE_COUNT: 'many' })).toThrow(ConfigError);
    expect(() => readConfig(baseConfig, { ...good, PAGINATE_COUNT: 'many' })).toThrow(/PAGINATE_COUNT/);
    expect(() => readConfig(baseConfig, { ...good, STRICT_FILTERING: 'perhaps' })).toThrow(/STRICT_FILTERING/);
  });

  test('when an optional URL is given blank (as compose passes an unset variable), then it is unset; a wrong one still stops', () => {
    const c = readConfig(baseConfig, { ...good, PUBLIC_URL: '', AMQP_URL: '' });
    expect(c.PUBLIC_URL).toBeUndefined();
    expect(c.AMQP_URL).toBeUndefined();
    expect(() => readConfig(baseConfig, { ...good, PUBLIC_URL: 'not a url' })).toThrow(/PUBLIC_URL/);
    expect(() => readConfig(baseConfig, { ...good, AMQP_URL: 'http://broker' })).toThrow(/AMQP_URL/);
  });
});

describe('HTTP bootstrap', () => {
  test('when handlers throw typed errors or bad bodies arrive, then answers are NetBox-shaped', async () => {
    const log = createLogger('test', 'silent');
    const app = createApp({
      name: 'test',
      log,
      readiness: [async () => undefined],
      routes: (a) => {
        a.post('/echo/', (req, res) => {
          res.json({ body: req.body ?? null, requestId: currentContext()?.requestId });
        });
        a.get('/invalid/', () => {
          throw new ValidationError({ name: ['This field is required.'] });
        });
        a.get('/missing/', () => {
          throw new NotFound();
        });
        a.get('/conflict/', () => {
          throw new Conflict('Unable to delete object.');
        });
        a.get('/boom/', () => {
          throw new Error('secret internals');
        });
      },
    });
    const server = await listen(app, 0);
    const url = server.url;
    try {
      const echo = await fetch(`${url}/echo/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
      const body = (await echo.json()) as any;
      expect(body.body).toEqual({ a: 1 });
      expect(body.requestId).toBe(echo.headers.get('x-request-id'));
      const parse = await fetch(`${url}/echo/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
      expect(parse.status).toBe(400);
      expect(((await parse.json()) as any).detail).toMatch(/^JSON parse error - /);
      const media = await fetch(`${url}/echo/`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'a' });
      expect(media.status).toBe(415);
      expect(await media.json()).toEqual({ detail: 'Unsupported media type "text/plain" in request.' });
      expect(await (await fetch(`${url}/invalid/`)).json()).toEqual({ name: ['This field is required.'] });
      expect((await fetch(`${url}/missing/`)).status).toBe(404);
      expect((await fetch(`${url}/conflict/`)).status).toBe(409);
      const boom = await fetch(`${url}/boom/`);
      expect(boom.status).toBe(500);
      expect(await boom.text()).not.toMatch(/secret internals/);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('Cache: per-entry TTL', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  test('when an entry is set with its own TTL, then it expires on that TTL, shorter or longer than the cache\'s', async () => {
    const cache = new Cache<string, number>({ max: 10, ttlMs: 150 });
    cache.set('short', 1, 10);
    cache.set('default', 2);
    cache.set('long', 3, 10_000);
    expect([cache.get('short'), cache.get('default'), cache.get('long')]).toEqual([1, 2, 3]);
    await sleep(50);
    expect([cache.get('short'), cache.get('default'), cache.get('long')]).toEqual([undefined, 2, 3]);
    await sleep(150);
    expect([cache.get('short'), cache.get('default'), cache.get('long')]).toEqual([undefined, undefined, 3]);
  });

  test('when the TTL is 0 or less, then nothing is cached and what the key held is dropped', () => {
    const cache = new Cache<string, number>({ max: 10, ttlMs: 10_000 });
    cache.set('a', 1);
    cache.set('a', 2, 0);
    cache.set('b', 3, -5);
    expect([cache.get('a'), cache.get('b'), cache.size]).toEqual([undefined, undefined, 0]);
  });

  test('when setIf is given a TTL, then it applies it, and still caches nothing after a drop', async () => {
    const cache = new Cache<string, number>({ max: 10, ttlMs: 10_000 });
    const generation = cache.current;
    cache.setIf(generation, 'a', 1, 10);
    expect(cache.get('a')).toBe(1);
    await sleep(25);
    expect(cache.get('a')).toBeUndefined();
    cache.delete('other');
    cache.setIf(generation, 'a', 2, 10_000);
    expect(cache.get('a')).toBeUndefined();
  });

  test('when a loader answers its own TTL, then concurrent callers share the load and the answer is kept that long', async () => {
    const cache = new Cache<string, string>({ max: 10, ttlMs: 10_000 });
    let calls = 0;
    const loader = async (key: string) => {
      calls++;
      await sleep(5);
      return { value: `${key}${calls}`, ttlMs: 50 };
    };
    expect(await Promise.all([cache.loadWithTtl('k', loader), cache.loadWithTtl('k', loader)])).toEqual(['k1', 'k1']);
    expect(await cache.loadWithTtl('k', loader)).toBe('k1');
    expect(calls).toBe(1);
    await sleep(80);
    expect(await cache.loadWithTtl('k', loader)).toBe('k2');
    // without ttlMs the cache's TTL applies; undefined is not cached
    expect(await cache.loadWithTtl('d', async () => ({ value: 'd' }))).toBe('d');
    await sleep(30);
    expect(cache.get('d')).toBe('d');
    expect(await cache.loadWithTtl('u', async () => undefined)).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  test('when the cache is cleared while a load with a TTL is in flight, then its answer is returned but not kept', async () => {
    const cache = new Cache<string, string>({ max: 10, ttlMs: 10_000 });
    const load = cache.loadWithTtl('k', async () => {
      await sleep(5);
      return { value: 'stale', ttlMs: 10_000 };
    });
    cache.clear();
    expect(await load).toBe('stale');
    expect(cache.get('k')).toBeUndefined();
  });
});
