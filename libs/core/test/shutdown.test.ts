import http from 'node:http';
import { createApp, createLogger, listen, safeMessage, safeUrl, waitFor } from '@inventory/core';

const log = createLogger('test', 'silent');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function app() {
  return createApp({
    name: 'demo',
    log,
    readiness: [async () => undefined],
    routes: (a) => {
      a.get('/fast/', (_req, res) => void res.json({ ok: true }));
      a.get('/slow/', async (req, res) => {
        await sleep(Number(req.query.ms ?? 400));
        res.json({ ok: true });
      });
    },
  });
}

/** A GET on its own keep-alive agent: status and Connection header, or the connection error's code. */
function get(url: string, agent: http.Agent): Promise<{ status?: number; connection?: string; error?: string }> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, connection: String(res.headers.connection) }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
  });
}

describe('graceful shutdown', () => {
  test('when close() starts, then readiness is 503 at once, requests are served through the delay, in-flight ones finish with Connection: close, and new connections are refused', async () => {
    const server = await listen(app(), 0, '127.0.0.1', { delayMs: 300, timeoutMs: 5000 });
    const agent = new http.Agent({ keepAlive: true });
    try {
      expect((await get(`${server.url}/readyz`, agent)).status).toBe(200);
      const inFlight = get(`${server.url}/slow/?ms=600`, agent);
      await sleep(50);
      const closed = server.close();
      expect(await get(`${server.url}/readyz`, agent)).toEqual({ status: 503, connection: 'keep-alive' });
      // the delay: the balancer is still taking the instance out, so it is served as usual
      expect(await get(`${server.url}/fast/`, agent)).toEqual({ status: 200, connection: 'keep-alive' });
      await sleep(350);
      expect(await get(`${server.url}/fast/`, new http.Agent())).toEqual({ error: 'ECONNREFUSED' });
      expect(await inFlight).toEqual({ status: 200, connection: 'close' });
      await closed;
    } finally {
      agent.destroy();
    }
  });

  test('when a client keeps sending on its keep-alive connection as the listener closes, then every request is answered and the last says Connection: close', async () => {
    const server = await listen(app(), 0, '127.0.0.1', { timeoutMs: 5000 });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const outcomes: { status?: number; connection?: string; error?: string }[] = [];
    let stop = false;
    const client = (async () => {
      while (!stop) {
        const o = await get(`${server.url}/fast/`, agent);
        outcomes.push(o);
        if (o.error) stop = true;
      }
    })();
    try {
      while (outcomes.length < 3) await sleep(5);
      await server.close();
      await client;
      const answered = outcomes.filter((o) => o.status);
      expect(answered.length).toBeGreaterThanOrEqual(3);
      expect(answered.every((o) => o.status === 200)).toBe(true);
      // once told to close, the client opens a new connection: refused, never reset
      expect(answered[answered.length - 1].connection).toBe('close');
      expect(outcomes[outcomes.length - 1]).toEqual({ error: 'ECONNREFUSED' });
    } finally {
      stop = true;
      agent.destroy();
    }
  });

  test('when clients hold idle keep-alive connections (fetch\'s pool), then close() ends them after a short grace, not at the timeout', async () => {
    const server = await listen(app(), 0, '127.0.0.1', { timeoutMs: 10_000 });
    await Promise.all([1, 2, 3].map(async () => (await fetch(`${server.url}/slow/?ms=20`)).text()));
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('when a request outlives SHUTDOWN_TIMEOUT, then its connection is cut and close() resolves', async () => {
    const server = await listen(app(), 0, '127.0.0.1', { timeoutMs: 200 });
    const agent = new http.Agent({ keepAlive: true });
    try {
      const stuck = get(`${server.url}/slow/?ms=1500`, agent);
      await sleep(50);
      const started = Date.now();
      await server.close();
      expect(Date.now() - started).toBeLessThan(1000);
      expect((await stuck).error).toBe('ECONNRESET');
      await sleep(1500); // the handler's own wait ends (nothing left running after the test)
    } finally {
      agent.destroy();
    }
  });
});

describe('waiting for a dependency', () => {
  test('when the probe fails a few times, then waitFor retries with growing pauses and logs each failure without credentials', async () => {
    const lines: { level: number; obj: Record<string, unknown>; msg: string }[] = [];
    const logger = {
      warn: (obj: Record<string, unknown>, msg: string) => lines.push({ level: 40, obj, msg }),
      info: (obj: Record<string, unknown>, msg: string) => lines.push({ level: 30, obj, msg }),
    } as unknown as Parameters<typeof waitFor>[3];
    const at: number[] = [];
    await waitFor(
      'PostgreSQL',
      safeUrl('postgres://admin:hunter2@db.internal:5432/inventory'),
      async () => {
        at.push(Date.now());
        if (at.length < 4) throw new Error('connect ECONNREFUSED to postgres://admin:hunter2@db.internal:5432/inventory');
      },
      logger,
      { initialMs: 40, maxMs: 100 },
    );
    expect(at).toHaveLength(4);
    const pauses = at.slice(1).map((t, i) => t - at[i]);
    // 20-40 ms, 40-80 ms, then capped: 50-100 ms
    expect(pauses[0]).toBeGreaterThanOrEqual(19);
    expect(pauses[1]).toBeGreaterThanOrEqual(39);
    expect(pauses[2]).toBeGreaterThanOrEqual(49);
    expect(lines.filter((l) => l.level === 40)).toHaveLength(3);
    expect(lines[0].obj).toMatchObject({ dependency: 'PostgreSQL', target: 'postgres://db.internal:5432/inventory', attempt: 1 });
    expect(lines[lines.length - 1]).toMatchObject({ level: 30, msg: 'PostgreSQL is reachable', obj: { attempts: 4 } });
    expect(JSON.stringify(lines)).not.toContain('hunter2');
    expect(JSON.stringify(lines)).not.toContain('admin');
  });

  test('when a URL or an error message carries credentials, then what may be logged has none', () => {
    expect(safeUrl('amqp://guest:s3cret@rabbit:5672/%2F')).toBe('amqp://rabbit:5672/%2F');
    expect(safeUrl('postgres://u:p@127.0.0.1/db')).toBe('postgres://127.0.0.1/db');
    expect(safeMessage(new Error('cannot reach amqps://user:p4ss@host/vh'))).toBe('cannot reach amqps://host/vh');
  });
});
