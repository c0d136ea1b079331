import * as http from 'node:http';
import * as https from 'node:https';

/** What a receiver answered: its status, headers and the start of its body. */
export interface Answer {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  /** The body's first `excerpt` characters (the rest is read and dropped, so the connection is kept). */
  body: string;
}

export interface RequestOptions {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** The whole exchange's deadline, connection to the body's end (ms). */
  timeoutMs: number;
  rejectUnauthorized: boolean;
  ca?: Buffer;
  /** Characters of the answer's body kept. */
  excerpt: number;
}

// connections to a receiver are kept open between deliveries (TLS options are part of the https pool's key)
const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 256 }), https: new https.Agent({ keepAlive: true, maxSockets: 256 }) };

/**
 * One HTTP request on node's own client, kept-alive: what a delivery needs
 * and nothing more (no redirects followed, no retries, no decompression:
 * none is asked for). Node's client costs the dispatcher a fraction of what
 * got's option handling, hooks and timers did per request (decision 010,
 * "Where a delivery's time goes"). Rejects on a network error, a TLS
 * failure or the deadline (got's message for it, as the log showed before).
 */
export function request(url: string, o: RequestOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return reject(new Error(`Invalid URL: ${url}`));
    }
    const secure = target.protocol === 'https:';
    if (!secure && target.protocol !== 'http:') return reject(new Error(`Unsupported protocol "${target.protocol}"`));
    const headers: Record<string, string | number> = { ...o.headers };
    if (o.body !== undefined) headers['Content-Length'] = Buffer.byteLength(o.body);
    const options: https.RequestOptions = { method: o.method, headers, agent: secure ? agents.https : agents.http };
    if (secure) Object.assign(options, { rejectUnauthorized: o.rejectUnauthorized, ...(o.ca ? { ca: o.ca } : {}) });
    const req = (secure ? https : http).request(target, options, (res) => {
      const keep = o.excerpt * 4; // bytes enough for `excerpt` characters of UTF-8
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on('data', (chunk: Buffer) => {
        if (kept < keep) {
          chunks.push(chunk);
          kept += chunk.length;
        }
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8').slice(0, o.excerpt) });
      });
      res.on('error', fail);
    });
    function fail(err: Error): void {
      clearTimeout(timer);
      reject(err);
    }
    const timer = setTimeout(() => req.destroy(new Error(`Timeout awaiting 'request' for ${o.timeoutMs}ms`)), o.timeoutMs);
    req.on('error', fail);
    req.end(o.body);
  });
}
