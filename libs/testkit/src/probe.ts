/**
 * Shared machinery of the contract's property passes: send a request and
 * describe it reproducibly, fingerprint a service's tables, collect defects.
 */
import pg from 'pg';
import type { ModelDef } from '@inventory/rest';
import type { Client, Reply } from './http';
import type { OpenApiChecker } from './openapi-check';
import { jsonText } from './arbitraries';

export interface Probe {
  method: string;
  path: string;
  /** JSON body (may hold RawJson leaves). */
  body?: unknown;
  /** Raw body text, sent as is. */
  raw?: string;
  headers?: Record<string, string>;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export const isWrite = (p: Probe) => WRITES.has(p.method);

function clip(text: string, n: number): string {
  return text.length > n ? `${text.slice(0, n)}…(${text.length} chars)` : text;
}

/** Reproducible text of a request: method, path, odd headers and the (truncated) body. */
export function describeProbe(p: Probe): string {
  const parts = [`${p.method} ${clip(p.path, 300)}`];
  if (p.headers && Object.keys(p.headers).length) parts.push(`headers ${JSON.stringify(Object.fromEntries(Object.entries(p.headers).map(([k, v]) => [k, clip(v, 40)])))}`);
  const body = p.raw !== undefined ? p.raw : p.body !== undefined ? jsonText(p.body) : undefined;
  if (body !== undefined) parts.push(`body ${clip(JSON.stringify(body), 600)}`);
  return parts.join(' ');
}

export function describeReply(r: Reply | null, err?: unknown): string {
  if (!r) return `no reply: ${String((err as Error)?.message ?? err)}`;
  return `${r.status} ${clip(r.text.replace(/\s+/g, ' '), 400)}`;
}

/** How long a pass waits for one answer before it calls the service hung. */
export const REPLY_TIMEOUT_MS = Number(process.env.FUZZ_REPLY_TIMEOUT_MS ?? 15_000);

/** The same client, but a request that gets no answer in time fails instead of hanging the suite. */
export function timed(api: Client, ms = REPLY_TIMEOUT_MS): Client {
  return new Proxy(api, {
    get(target, key, receiver) {
      if (key !== 'request') return Reflect.get(target, key, receiver);
      return (method: string, path: string, opts?: Parameters<Client['request']>[2]) => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms (service hung?): ${method} ${path.slice(0, 200)}`)), ms);
        });
        return Promise.race([target.request(method, path, opts), late]).finally(() => clearTimeout(timer));
      };
    },
  });
}

/** Sends a probe; a network failure or an unparsable JSON reply comes back as `error`. */
export async function send(api: Client, p: Probe): Promise<{ reply: Reply | null; error?: unknown }> {
  const headers: Record<string, string> = { ...p.headers };
  let raw = p.raw;
  if (raw === undefined && p.body !== undefined) {
    raw = jsonText(p.body);
    headers['content-type'] ??= 'application/json';
  }
  try {
    return { reply: await api.request(p.method, p.path, { raw, headers }) };
  } catch (error) {
    return { reply: null, error };
  }
}

export interface TableState {
  n: number;
  h: string;
}

/** Row counts and checksums of every table of one service's schema, read straight from PostgreSQL. */
/** Tables that event consumers fill in the background (the change log, processed events). */
const BACKGROUND_TABLES = new Set(['_processed_event', 'object_change']);

export class SchemaProbe {
  private client: pg.Client | null = null;
  private statement: string | null = null;

  constructor(
    private readonly url: string,
    readonly schema: string,
  ) {}

  /** `name`: a statement prepared once on this probe's connection and then only executed (its plan kept). */
  async query<T = Record<string, any>>(text: string, values: unknown[] = [], name?: string): Promise<T[]> {
    if (!this.client) {
      this.client = new pg.Client({ connectionString: this.url });
      // the database is dropped (WITH FORCE) when the stack stops; that is not an error of the suite
      this.client.on('error', () => undefined);
      await this.client.connect();
    }
    return (await this.client.query({ text, values, name })).rows as T[];
  }

  table(name: string): string {
    return `"${this.schema}"."${name}"`;
  }

  async snapshot(): Promise<Map<string, TableState>> {
    if (!this.statement) {
      const tables = await this.query<{ t: string }>(
        `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name <> '_migrations' ORDER BY 1`,
        [this.schema],
      );
      // what background workers write is not the request's doing: consumers' tables are left out, and the
      // outbox is compared by its events (the relay marks them sent at any moment).
      // A committed insert, update or delete changes the set of live row versions, each known by the
      // transaction that wrote it and its place (xmin, ctid): a sum of their hashes tells any change without
      // reading or sorting the rows' contents (the fuzz takes two snapshots per write, over every table)
      // histories (decision 034) change exactly when their tables do, and grow with every write: left out
      this.statement = tables
        .filter(({ t }) => !BACKGROUND_TABLES.has(t) && !t.endsWith('__history') && t !== '_history_start')
        .map(({ t }) => {
          const value = t === '_outbox' ? 'x.id::text' : `x.xmin::text || ':' || x.ctid::text`;
          return `SELECT '${t.replace(/'/g, "''")}' AS t, count(*)::int AS n, coalesce(sum(hashtext(${value})::bigint), 0)::text AS h FROM ${this.table(t)} x`;
        })
        .join(' UNION ALL ');
    }
    // planning a union over every table costs several times running it (10 ms against 1 ms over dcim's 70
    // tables): the statement is prepared once, its plan reused by every snapshot after
    const rows = await this.query<{ t: string; n: number; h: string }>(this.statement, [], 'schema-snapshot');
    return new Map(rows.map((r) => [r.t, { n: Number(r.n), h: r.h }]));
  }

  /** Tables whose count or checksum differ, as text. */
  static diff(before: Map<string, TableState>, after: Map<string, TableState>): string[] {
    const out: string[] = [];
    for (const [t, a] of before) {
      const b = after.get(t);
      if (!b || a.n !== b.n || a.h !== b.h) out.push(`${t}: ${a.n} rows → ${b?.n ?? '?'} rows${a.n === b?.n ? ' (contents changed)' : ''}`);
    }
    return out;
  }

  async end(): Promise<void> {
    await this.client?.end().catch(() => undefined);
    this.client = null;
  }
}

/** Distinct defects of one pass (one line each, the first reproduction kept per signature). */
export class Defects {
  private readonly seen = new Map<string, string>();
  /** What the pass sent and saw, for its closing line. */
  readonly tally = { requests: 0, writes: 0, rejected: 0, server_errors: 0, partial_writes: 0 };

  constructor(private readonly title: string) {}

  add(signature: string, text: string): void {
    if (!this.seen.has(signature)) this.seen.set(signature, text);
  }

  get size(): number {
    return this.seen.size;
  }

  /** Throws one error listing every defect, so a run reports all of them at once. */
  throwIfAny(context: string): void {
    if (!this.seen.size) return;
    const all = [...this.seen.values()];
    const list = all
      .slice(0, 40)
      .map((t, i) => `  ${i + 1}. ${t}`)
      .join('\n');
    throw new Error(`${this.title}: ${this.seen.size} defect(s) ${context}\n${list}`);
  }
}

/** Traits of a request that usually name the cause of a failure (NUL bytes, huge numbers, prototype keys...). */
export function traits(p: Probe): string[] {
  const text = `${p.path} ${p.raw ?? (p.body !== undefined ? jsonText(p.body) : '')} ${p.headers ? JSON.stringify(p.headers) : ''}`;
  const out: string[] = [];
  const has = (re: RegExp, name: string) => re.test(text) && out.push(name);
  has(/\\u0000|%00/i, 'NUL');
  has(/\\ud[89ab]|%ED%A0%80|%FF|%C0/i, 'bad-unicode');
  has(/\d{16,}|\de[34]\d\d|e\+30/, 'huge-number');
  has(/__proto__/, '__proto__');
  has(/constructor|toString|hasOwnProperty/, 'prototype-name');
  has(/ordering=/, 'ordering');
  has(/(limit|offset)=/, 'paging');
  has(/\d{4,5}-\d{2}-\d{2}|now|today/, 'date');
  has(/\[{50}|(\{"a":){50}/, 'deep');
  has(/x{2000}|k{2000}|r{2000}/, 'long');
  if (p.headers && Object.keys(p.headers).length) out.push('headers');
  return out;
}

/** A short signature of a failing request: kind, method, path shape, status and traits. */
export function signature(p: Probe, reply: Reply | null, kind: string): string {
  const [path] = p.path.split('?');
  const shape = path.replace(/\/[^/]*\/$/, (m) => (/^\/[a-z-]+\/$/.test(m) ? m : '/:id/'));
  return `${kind}|${p.method}|${shape}|${reply?.status ?? 0}|${traits(p).join(',')}`;
}

/** What a property pass needs from the contract that runs it. */
export interface PassContext {
  title: string;
  /** List path, e.g. `/api/tenancy/tenants/`. */
  path: string;
  /** Component schema name. */
  schema: string;
  model: ModelDef;
  api: Client;
  checker: OpenApiChecker;
  db: SchemaProbe;
  /** A fresh valid create body (the contract's shared counter). */
  make: () => Promise<Record<string, any>>;
  /** A valid PATCH body. */
  patch: Record<string, any>;
  /** Other models declared in the same test file, by label. */
  declared: Map<string, Declared>;
}

export interface Declared {
  model: ModelDef;
  service: string;
  path: string;
  make: () => Promise<Record<string, any>>;
}

/** The run's seed: FUZZ_SEED, or one drawn once per test file (printed so it can be replayed). */
export const FUZZ_SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) | 0 : (Math.floor(Math.random() * 0x7fffffff) ^ Date.now()) | 0;
/** Runs per endpoint group: FUZZ_RUNS (default small so the suite stays fast). */
export const FUZZ_RUNS = Math.max(1, Number(process.env.FUZZ_RUNS ?? 25) || 25);
