import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a `TestReceiver` got (recorded when its body has arrived, before it is answered). */
export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The exact body bytes. */
  raw: Buffer;
  body: string;
  /** Date.now() when it arrived. */
  at: number;
}

/** How to answer one request: a status (200), after a delay (none) or once `hold` settles, with a body ('ok'). */
export interface Answer {
  status?: number;
  delayMs?: number;
  /** Answered only once this settles: a receiver that holds its requests until the test lets go. */
  hold?: Promise<unknown>;
  body?: string;
}

export interface TestReceiver {
  /** `http://127.0.0.1:<port>` */
  url: string;
  received: Received[];
  /** Requests answered so far. */
  answered: number;
  /** Requests whose sender closed the connection before they were answered (it gave up waiting). */
  dropped: number;
  /** Decides each answer (replace it at will); 200 at once by default. */
  answer: (r: Received) => Answer | undefined;
  /** The requests to one path. */
  to(path: string): Received[];
  close(): Promise<void>;
}

/**
 * A real HTTP receiver for webhook deliveries on 127.0.0.1 (a free port,
 * or `port` when given): records every request and answers as `answer`
 * says. `close()` drops the connections it holds open.
 */
export async function startReceiver(answer: TestReceiver['answer'] = () => undefined, port = 0): Promise<TestReceiver> {
  const timers = new Set<NodeJS.Timeout>();
  const receiver: TestReceiver = {
    url: '',
    received: [],
    answered: 0,
    dropped: 0,
    answer,
    to: (path) => receiver.received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const r: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, body: raw.toString('utf8'), at: Date.now() };
      receiver.received.push(r);
      const a = receiver.answer(r) ?? {};
      let replied = false;
      res.on('close', () => {
        if (!replied) receiver.dropped++;
      });
      const reply = () => {
        if (res.destroyed) return;
        replied = true;
        res.statusCode = a.status ?? 200;
        res.end(a.body ?? (res.statusCode < 300 ? 'ok' : 'not now'));
        receiver.answered++;
      };
      if (a.hold) {
        void a.hold.then(reply, reply);
        return;
      }
      if (!a.delayMs) return reply();
      const t = setTimeout(() => (timers.delete(t), reply()), a.delayMs);
      timers.add(t);
    });
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}
