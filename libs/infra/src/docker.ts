import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';

const PING_TIMEOUT_MS = 1500;

interface Endpoint { socketPath?: string; host?: string; port?: number; tls?: { ca?: Buffer; cert?: Buffer; key?: Buffer } }

function readCerts(dir: string | undefined): Endpoint['tls'] {
  const read = (f: string): Buffer | undefined => {
    try {
      return dir ? fs.readFileSync(path.join(dir, f)) : undefined;
    } catch {
      return undefined;
    }
  };
  return { ca: read('ca.pem'), cert: read('cert.pem'), key: read('key.pem') };
}

function fromUri(uri: string, tlsVerify?: string, certPath?: string): Endpoint | undefined {
  try {
    const u = new URL(uri);
    if (u.protocol === 'unix:') return { socketPath: u.pathname };
    if (u.protocol === 'tcp:' || u.protocol === 'http:' || u.protocol === 'https:') {
      const tls = u.protocol === 'https:' || tlsVerify === '1';
      return { host: u.hostname, port: Number(u.port) || (tls ? 2376 : 2375), tls: tls ? readCerts(certPath) : undefined };
    }
  } catch {
    /* malformed */
  }
  return undefined;
}

/** ~/.testcontainers.properties, which testcontainers itself also honours. */
function fromProperties(): Endpoint | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(os.homedir(), '.testcontainers.properties'), 'utf8');
  } catch {
    return undefined;
  }
  const props = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^\s*([^#=\s]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (m) props.set(m[1], m[2]);
  }
  const host = props.get('docker.host');
  return host ? fromUri(host, props.get('docker.tls.verify'), props.get('docker.cert.path')) : undefined;
}

/** The endpoints testcontainers would try, in the same order. */
function candidates(): Endpoint[] {
  if (process.env.DOCKER_HOST) {
    const e = fromUri(process.env.DOCKER_HOST, process.env.DOCKER_TLS_VERIFY, process.env.DOCKER_CERT_PATH);
    return e ? [e] : [];
  }
  const props = fromProperties();
  if (props) return [props];
  const sockets = [
    '/var/run/docker.sock',
    process.env.XDG_RUNTIME_DIR ? path.join(process.env.XDG_RUNTIME_DIR, 'docker.sock') : undefined,
    path.join(os.homedir(), '.docker', 'run', 'docker.sock'),
    path.join(os.homedir(), '.docker', 'desktop', 'docker.sock'),
    typeof process.getuid === 'function' ? `/run/user/${process.getuid()}/docker.sock` : undefined,
  ];
  return sockets.filter((s): s is string => !!s && fs.existsSync(s)).map((socketPath) => ({ socketPath }));
}

function ping(e: Endpoint): Promise<boolean> {
  return new Promise((resolve) => {
    const opts: https.RequestOptions = {
      method: 'GET',
      path: '/_ping',
      socketPath: e.socketPath,
      host: e.host,
      port: e.port,
      timeout: PING_TIMEOUT_MS,
      ...(e.tls ?? {}),
    };
    const req = (e.tls ? https : http).request(opts, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    const timer = setTimeout(() => req.destroy(), PING_TIMEOUT_MS);
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.on('close', () => {
      clearTimeout(timer);
      resolve(false); // no-op if already resolved
    });
    req.end();
  });
}

/**
 * True only when a Docker engine answers GET /_ping. The `docker` CLI being
 * installed proves nothing (it is present on machines without an engine).
 */
export async function dockerAvailable(): Promise<boolean> {
  // In parallel, so the whole check stays within one ping timeout.
  const answers = await Promise.all(candidates().map(ping));
  return answers.some(Boolean);
}
