import { Metrics, createApp, createLogger, listen, type RunningServer } from '@inventory/core';
import { parseExposition } from '@inventory/testkit';

const log = createLogger('test', 'silent');

/** A service with a route per verb and a parameter, whose /metrics may want a token. */
async function serve(metricsToken?: string): Promise<{ server: RunningServer; metrics: Metrics }> {
  const metrics = new Metrics('demo');
  const app = createApp({
    name: 'demo',
    log,
    metrics,
    metricsToken,
    routes: (a) => {
      a.get('/api/things/', (_req, res) => void res.json([]));
      a.get('/api/things/:id/', (req, res) => {
        if (req.params.id === '0') throw new Error('boom');
        res.json({ id: Number(req.params.id) });
      });
      a.post('/api/things/', (_req, res) => void res.status(201).json({}));
      // several constant paths on one route: the label is the one requested
      a.get(['/api/a/', '/api/b/'], (_req, res) => void res.json({}));
    },
  });
  return { server: await listen(app, 0), metrics };
}

async function scrape(url: string, headers: Record<string, string> = {}) {
  const r = await fetch(`${url}/metrics`, { headers });
  return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
}

describe('metrics', () => {
  test('when requests are answered, then /metrics counts them per route pattern, method and status class, never per URL', async () => {
    const { server } = await serve();
    try {
      const before = parseExposition((await scrape(server.url)).text);
      for (const id of [1, 2, 3]) expect((await fetch(`${server.url}/api/things/${id}/`)).status).toBe(200);
      expect((await fetch(`${server.url}/api/things/0/`)).status).toBe(500);
      expect((await fetch(`${server.url}/api/things/`, { method: 'POST' })).status).toBe(201);
      expect((await fetch(`${server.url}/api/things/`)).status).toBe(200);
      expect((await fetch(`${server.url}/api/b/`)).status).toBe(200);
      expect((await fetch(`${server.url}/nowhere/42`)).status).toBe(404);
      const page = await scrape(server.url);
      expect(page.status).toBe(200);
      expect(page.type).toMatch(/^text\/plain; version=0\.0\.4/);
      const after = parseExposition(page.text);
      const delta = (name: string, labels: Record<string, string>) => after.value(name, labels) - before.value(name, labels);
      const at = (route: string, method: string, status_class: string) => ({ service: 'demo', route, method, status_class });
      expect(delta('inventory_http_requests_total', at('/api/things/:id/', 'GET', '2xx'))).toBe(3);
      expect(delta('inventory_http_requests_total', at('/api/things/:id/', 'GET', '5xx'))).toBe(1);
      expect(delta('inventory_http_requests_total', at('/api/things/', 'POST', '2xx'))).toBe(1);
      expect(delta('inventory_http_requests_total', at('/api/things/', 'GET', '2xx'))).toBe(1);
      expect(delta('inventory_http_requests_total', at('/api/b/', 'GET', '2xx'))).toBe(1);
      expect(delta('inventory_http_requests_total', at('other', 'GET', '4xx'))).toBe(1);
      expect(delta('inventory_http_request_duration_seconds_count', at('/api/things/:id/', 'GET', '2xx'))).toBe(3);
      // no label holds a URL: every route is a declared pattern or `other`
      const routes = new Set(after.samples.filter((s) => s.labels.route !== undefined).map((s) => s.labels.route));
      expect([...routes].sort()).toEqual(['/api/b/', '/api/things/', '/api/things/:id/', '/metrics', 'other'].sort());
      // the process's own figures come along, once
      expect(after.samples.filter((s) => s.name === 'process_cpu_user_seconds_total')).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  test('when two services share a process, then each /metrics shows its own requests only, with its name', async () => {
    const one = await serve();
    const two = await serve();
    try {
      await fetch(`${one.server.url}/api/things/`);
      await fetch(`${one.server.url}/api/things/`);
      const a = parseExposition((await scrape(one.server.url)).text);
      const b = parseExposition((await scrape(two.server.url)).text);
      expect(a.value('inventory_http_requests_total', { route: '/api/things/', method: 'GET', status_class: '2xx' })).toBe(2);
      expect(b.value('inventory_http_requests_total', { route: '/api/things/', method: 'GET', status_class: '2xx' })).toBe(0);
    } finally {
      await one.server.close();
      await two.server.close();
    }
  });

  test('when METRICS_TOKEN is set, then /metrics wants it as a bearer token, and says so in NetBox\'s shape', async () => {
    const { server } = await serve('metrics-token-0123456789');
    try {
      const none = await fetch(`${server.url}/metrics`);
      expect([none.status, await none.json()]).toEqual([403, { detail: 'Authentication credentials were not provided.' }]);
      const wrong = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456780' } });
      expect([wrong.status, await wrong.json()]).toEqual([403, { detail: 'Invalid metrics token.' }]);
      const right = await scrape(server.url, { authorization: 'Bearer metrics-token-0123456789' });
      expect(right.status).toBe(200);
      expect(right.text).toContain('inventory_http_requests_total');
    } finally {
      await server.close();
    }
  });

  test('when a gauge\'s collector fails, then the scrape still answers, that gauge without a figure', async () => {
    const metrics = new Metrics('demo');
    metrics.gauge('demo_working', 'works', [], (g) => g.set(7));
    metrics.gauge('demo_broken', 'fails', [], () => {
      throw new Error('database down');
    });
    metrics.gauge('demo_broken_labelled', 'fails', ['pool'], () => {
      throw new Error('database down');
    });
    const page = parseExposition(await metrics.exposition());
    expect(page.value('demo_working', {})).toBe(7);
    expect(Number.isNaN(page.value('demo_broken', {}))).toBe(true);
    expect(page.samples.filter((s) => s.name === 'demo_broken_labelled')).toEqual([]);
  });
});
