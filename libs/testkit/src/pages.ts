/**
 * A browser's side of the gateway's pages at the HTTP level: a cookie jar,
 * requests that send and keep cookies as a browser does, and the sign-in
 * form (GET /login/ for the CSRF token, then POST the credentials).
 */

/** Cookies as a browser keeps them: set by Set-Cookie, deleted by an empty value or Max-Age=0. */
export class CookieJar {
  readonly cookies = new Map<string, string>();

  take(res: Response): string[] {
    const set = res.headers.getSetCookie();
    for (const line of set) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const maxAge = attrs.map((a) => a.trim()).find((a) => /^max-age=/i.test(a));
      if (!value || (maxAge && Number(maxAge.split('=')[1]) <= 0)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return set;
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  copy(): CookieJar {
    const j = new CookieJar();
    for (const [k, v] of this.cookies) j.cookies.set(k, v);
    return j;
  }
}

export interface PageAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
  setCookies: string[];
}

export interface PageRequest {
  jar?: CookieJar;
  /** Sent urlencoded, as a form is. */
  form?: Record<string, string>;
  /** Sent as JSON (Accept: application/json unless `headers` says otherwise). */
  json?: unknown;
  headers?: Record<string, string>;
}

export type PageSender = (method: string, url: string, opts?: PageRequest) => Promise<PageAnswer>;

/** Requests to `base` as a browser sends them (Accept prefers HTML), redirects not followed. */
export function pageSender(base: string): PageSender {
  return async (method, url, opts = {}) => {
    const headers: Record<string, string> = { accept: 'text/html,application/xhtml+xml' };
    if (opts.jar && opts.jar.cookies.size) headers.cookie = opts.jar.header();
    let body: string | undefined;
    if (opts.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(opts.form).toString();
    } else if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      headers.accept = 'application/json';
      body = typeof opts.json === 'string' ? opts.json : JSON.stringify(opts.json);
    }
    Object.assign(headers, opts.headers);
    const res = await fetch(base + url, { method, headers, body, redirect: 'manual' });
    const setCookies = opts.jar ? opts.jar.take(res) : res.headers.getSetCookie();
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json, setCookies };
  };
}

/** The CSRF token of a page's forms (`csrfmiddlewaretoken`). */
export function csrfField(html: string): string {
  const m = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(html);
  if (!m) throw new Error('no CSRF field on the page');
  return m[1];
}

/** Signs in through the form as a browser would; the jar then holds the session and CSRF cookies. */
export async function signIn(send: PageSender, username: string, password: string, extra: Record<string, string> = {}): Promise<{ jar: CookieJar; answer: PageAnswer }> {
  const jar = new CookieJar();
  const form = await send('GET', '/login/', { jar });
  const answer = await send('POST', '/login/', { jar, form: { csrfmiddlewaretoken: csrfField(form.text), username, password, next: '/api/', ...extra } });
  return { jar, answer };
}
