import * as net from 'node:net';

// Ports handed out by this process; the kernel may return the same free port
// twice before the first caller binds it (e.g. PostgreSQL and RabbitMQ started
// back to back), so never hand one out twice.
const handedOut = new Set<number>();

function probe(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** A TCP port on 127.0.0.1 that is free right now (it can still be taken before use). */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await probe();
    if (port && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('could not find a free TCP port');
}

/** Resolves true if something accepts a TCP connection on host:port within timeoutMs. */
export function canConnect(port: number, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host });
    const done = (ok: boolean): void => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}
