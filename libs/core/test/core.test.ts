import { baseConfig, readConfig, ConfigError, createApp, createLogger, listen, ValidationError, NotFound, Conflict, currentContext } from '@inventory/core';

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
