/**
 * One NetBox-shaped REST API (NetBox itself, or ours) as the import reads
 * and writes it: token authentication, JSON, and every list read whole in
 * pages ordered by id.
 */

export type Row = Record<string, unknown>;

/** What stops an import with a message for its user (and exit status 1), rather than a stack trace. */
export class ImportFailure extends Error {}

export interface Answer {
  status: number;
  body: unknown;
}

/** The header that makes a superuser's write an import on our side (ids kept; see libs/rest's import-mode.ts). */
export const IMPORT_HEADER = 'X-Inventory-Import';

/** Objects per list read: NetBox's default MAX_PAGE_SIZE. */
const READ_PAGE = 1000;

export class Api {
  readonly base: string;

  constructor(
    base: string,
    private readonly token: string,
    readonly name: string,
    private readonly extraHeaders: Record<string, string> = {},
  ) {
    this.base = base.replace(/\/+$/, '').replace(/\/api$/, '');
  }

  async request(method: string, path: string, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = { Accept: 'application/json', ...this.extraHeaders };
    if (this.token) headers.Authorization = `Token ${this.token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (err) {
      throw new ImportFailure(`${this.name} (${this.base}) does not answer: ${(err as Error).cause ? String((err as Error).cause) : (err as Error).message}`);
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON (an HTML error page): kept as text for the message
    }
    return { status: res.status, body: parsed };
  }

  /** A read that must succeed: 401/403 name the token, anything else not 200 is a failure naming the path. */
  async get(path: string): Promise<Row> {
    return this.ok('GET', path, await this.request('GET', path));
  }

  private ok(method: string, path: string, { status, body }: Answer): Row {
    if (status === 401 || status === 403) {
      throw new ImportFailure(`${this.name} refuses the token for ${method} ${path} (${status}): ${detailOf(body)}; the token must be able to read every model.`);
    }
    if (status !== 200) throw new ImportFailure(`${this.name}: ${method} ${path} answered ${status}: ${detailOf(body)}`);
    return body as Row;
  }

  /** Every object of a list endpoint, in id order (null when the endpoint is not served: 404). */
  async all(path: string, params = ''): Promise<Row[] | null> {
    const out: Row[] = [];
    for (let offset = 0; ; offset += READ_PAGE) {
      const url = `${path}?limit=${READ_PAGE}&offset=${offset}&ordering=id${params ? `&${params}` : ''}`;
      const answer = await this.request('GET', url);
      if (answer.status === 404 && offset === 0) return null;
      const page = this.ok('GET', url, answer);
      const results = (page.results ?? []) as Row[];
      out.push(...results);
      if (!page.next || !results.length) break;
    }
    // ordering=id is honoured by both; sorting again costs nothing and guards a source that ignores it
    return out.sort((a, b) => Number(a.id) - Number(b.id));
  }
}

/** A short text of an error answer's body. */
export function detailOf(body: unknown): string {
  if (body && typeof body === 'object' && 'detail' in body) return String((body as Row).detail);
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return (text ?? '').slice(0, 300);
}
