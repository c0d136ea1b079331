import { ApiError } from './errors';

export type Row = Record<string, unknown>;

/** Items per list request: well under the API's body limit and its page size. */
const CHUNK = 1000;

/**
 * Our API as the import uses it: paginated lists and the bulk (list) POST,
 * PATCH and DELETE of NetBox's API. Counts what it writes, so a run can say
 * (and a test assert) that a second run wrote nothing.
 */
export class InventoryApi {
  readonly writes = { requests: 0, objects: 0 };
  readonly reads = { requests: 0 };
  /** Per request: what, how many objects, how long (for the benchmark's per-model figures). */
  readonly timings: { what: string; objects: number; ms: number }[] = [];

  constructor(private readonly base: string, private readonly token: string) {}

  /** Every object of a list endpoint matching the query (all pages). */
  async list(endpoint: string, query: Record<string, string | number | (string | number)[]> = {}): Promise<Row[]> {
    const params = new URLSearchParams({ limit: '1000', ordering: 'id' });
    for (const [k, v] of Object.entries(query)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, String(one));
    let url: string | null = `${this.base}/api/dcim/${endpoint}/?${params}`;
    const out: Row[] = [];
    while (url) {
      const page = (await this.call('GET', url, undefined, `GET ${endpoint}`)) as { results: Row[]; next: string | null };
      out.push(...page.results);
      // follow `next` on our own base: behind a proxy its host may differ
      url = page.next ? `${this.base}${new URL(page.next).pathname}${new URL(page.next).search}` : null;
    }
    return out;
  }

  /** List POST in chunks; the created objects in the items' order. A 400 comes back as the per-item errors. */
  async create(endpoint: string, items: Row[]): Promise<Row[]> {
    return this.chunked('POST', endpoint, items);
  }

  /** List PATCH (each item carries its id). */
  async update(endpoint: string, items: Row[]): Promise<Row[]> {
    return this.chunked('PATCH', endpoint, items);
  }

  async remove(endpoint: string, ids: number[]): Promise<void> {
    await this.chunked('DELETE', endpoint, ids.map((id) => ({ id })));
  }

  private async chunked(method: string, endpoint: string, items: Row[]): Promise<Row[]> {
    const out: Row[] = [];
    for (let i = 0; i < items.length; i += CHUNK) {
      const part = items.slice(i, i + CHUNK);
      try {
        const t0 = performance.now();
        const body = await this.call(method, `${this.base}/api/dcim/${endpoint}/`, part, `${method} ${endpoint}`);
        this.timings.push({ what: `${method} ${endpoint}`, objects: part.length, ms: Math.round(performance.now() - t0) });
        this.writes.requests += 1;
        this.writes.objects += part.length;
        if (Array.isArray(body)) out.push(...(body as Row[]));
      } catch (err) {
        if (err instanceof ItemErrors) throw new ItemErrors(err.errors.map((e, k) => ({ ...e, index: i + k })).filter((e) => Object.keys(e.messages).length));
        throw err;
      }
    }
    return out;
  }

  private async call(method: string, url: string, body: unknown, what: string): Promise<unknown> {
    if (method === 'GET') this.reads.requests += 1;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: { authorization: `Token ${this.token}`, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (err) {
      throw new ApiError(0, (err as Error).cause ? String((err as Error).cause) : String(err), `${what} (is the API at ${this.base}?)`);
    }
    const text = await res.text();
    const parsed: unknown = text ? safeJson(text) : null;
    if (res.ok) return parsed;
    if (res.status === 400 && Array.isArray(parsed)) throw new ItemErrors(parsed.map((m, index) => ({ index, messages: (m ?? {}) as Record<string, unknown> })));
    throw new ApiError(res.status, parsed ?? text, what);
  }
}

/** A list write's 400: the messages of each refused item (by its index in the list sent). */
export class ItemErrors extends Error {
  constructor(readonly errors: { index: number; messages: Record<string, unknown> }[]) {
    super(`${errors.length} item(s) refused`);
    this.name = 'ItemErrors';
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
