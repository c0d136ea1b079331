import type { NextFunction, Request, Response } from 'express';
import { HttpError, PayloadTooLarge, TooManyRequests } from '@inventory/core';
import { actionFields, editableCopy, isObject, postTemplate } from './browsable-forms';
import { renderBrowsable, sendBrowsable, type BrowsableForms, type BrowsableView } from './browsable-page';
import { wantsHtml } from './html';
import type { IdentityMinter } from '../auth/identity';
import { navView, pathPrefix, safeNext } from './page-html';
import { callService, onBehalfOf, type ServiceAnswer } from '../forwarding/service-call';
import { sessionOf } from '../auth/session';
import { API_VERSION } from '../endpoints/status';
import { breadcrumbs, endpointName, pathKind, queryOf, shownHeaders, titleOf, withoutFormat } from './browsable-view';

/**
 * The browsable API (DRF's BrowsableAPIRenderer) on every endpoint, for a
 * client whose Accept prefers HTML (negotiation.ts). For an endpoint of a
 * service, the gateway asks the service on the caller's behalf for the JSON
 * answer (and, beside it, the endpoint's OPTIONS: name, description, the
 * fields the caller may write) and renders both as a page; JSON clients are
 * proxied as before and never come here. Writes sent from the page come back
 * through here too (the page asks for HTML), so their answer, errors
 * included, is drawn the same way.
 */

/** Request headers a write from the page needs passed on (the proxy passes all but credentials; these are the ones that mean something). */
const PASSED_HEADERS = ['content-type', 'if-match', 'if-none-match', 'idempotency-key', 'accept-language'];
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface BrowsableDeps {
  urls: Record<string, string>;
  minter: IdentityMinter;
  publicUrl: string | undefined;
  maxBodySize: number;
  /** A service accepted a write (the proxy's hook: users writes drop this gateway's auth caches). */
  onWrite: (service: string) => void;
}

export class BrowsableApi {
  private readonly prefix: string;

  constructor(private readonly deps: BrowsableDeps) {
    this.prefix = pathPrefix(deps.publicUrl);
  }

  /** A service's endpoint as a page. */
  async endpoint(service: string, req: Request, res: Response): Promise<void> {
    // HEAD is GET without the body (express leaves it out)
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const body = SAFE_METHODS.has(method) ? undefined : await readBody(req, this.deps.maxBodySize);
    const base = this.deps.urls[service];
    const headers: Record<string, string> = { ...onBehalfOf(req, res, this.deps.minter, service, this.deps.publicUrl), accept: 'application/json' };
    const [answer, options] = await Promise.all([
      callService(service, base + req.originalUrl, method, withPassed(headers, req), body),
      method === 'OPTIONS' ? null : callService(service, base + req.path, 'OPTIONS', headers).catch(() => null),
    ]);
    if (!SAFE_METHODS.has(method) && answer.status < 400) this.deps.onWrite(service);
    const optionsBody = options && options.status === 200 ? parseJson(options.text) : method === 'OPTIONS' && answer.status === 200 ? parseJson(answer.text) : undefined;
    const allow = answer.headers.get('allow');
    if (allow) res.setHeader('Allow', allow);
    this.send(req, res, {
      name: endpointName(req.path, optionsBody),
      description: isObject(optionsBody) && typeof optionsBody.description === 'string' ? optionsBody.description : '',
      answer,
      forms: this.forms(req, method, answer, optionsBody),
    });
  }

  /** An answer the gateway makes itself (/api/, area roots, status) as a page. */
  own(req: Request, res: Response, name: string, body: unknown): void {
    const headers: [string, string][] = [
      ['Allow', 'GET, HEAD, OPTIONS'],
      ['API-Version', API_VERSION],
      ['Content-Type', 'application/json'],
      ['Vary', 'Accept'],
    ];
    this.send(req, res, { name, description: '', status: 200, headers, body, forms: { url: this.prefix + req.path } });
  }

  /** Error middleware: under /api/, a refusal (401, 403, 404, 405, 413, 503...) is a page for a browser too. */
  errors() {
    return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
      if (res.headersSent || !req.path.startsWith('/api/') || !wantsHtml(req)) return next(err);
      let status: number;
      let body: unknown;
      if (err instanceof HttpError) {
        status = err.status;
        body = err.body;
        if (err instanceof TooManyRequests) res.setHeader('Retry-After', String(err.retryAfterSeconds));
      } else {
        // body-parser style errors that carry a status; anything else is the JSON error handler's (a masked 500 and a log line)
        const s = (err as { status?: unknown }).status;
        if (typeof s !== 'number' || s < 400 || s >= 500) return next(err);
        status = s;
        body = { detail: (err as Error).message };
      }
      const headers: [string, string][] = [['API-Version', API_VERSION], ['Content-Type', 'application/json'], ['Vary', 'Accept']];
      const allow = res.getHeader('Allow');
      if (allow) headers.unshift(['Allow', String(allow)]);
      this.send(req, res, { name: titleOf(req.path), description: '', status, headers, body, forms: { url: this.prefix + req.path } });
    };
  }

  private forms(req: Request, method: string, answer: ServiceAnswer, options: unknown): BrowsableForms {
    const forms: BrowsableForms = { url: this.prefix + req.path };
    const kind = pathKind(req.path);
    const post = actionFields(options, 'POST');
    if (post && kind !== 'detail') forms.post = { initial: postTemplate(post), fields: post };
    if (kind !== 'detail' || answer.status !== 200 || !['GET', 'PUT', 'PATCH'].includes(method)) return forms;
    const object = parseJson(answer.text);
    if (!isObject(object)) return forms;
    const put = actionFields(options, 'PUT');
    if (put) forms.edit = { initial: editableCopy(object, put), etag: answer.headers.get('etag'), fields: put };
    forms.remove = /\bDELETE\b/.test(answer.headers.get('allow') ?? '');
    return forms;
  }

  private send(
    req: Request,
    res: Response,
    a: { name: string; description: string; forms: BrowsableForms } & ({ answer: ServiceAnswer } | { status: number; headers: [string, string][]; body: unknown }),
  ): void {
    const session = sessionOf(res);
    let status: number;
    let headers: [string, string][];
    let body: unknown;
    let text: string | undefined;
    if ('answer' in a) {
      status = a.answer.status;
      headers = shownHeaders(a.answer.headers);
      const type = a.answer.headers.get('content-type') ?? '';
      body = type.includes('json') ? parseJson(a.answer.text) : undefined;
      if (body === undefined) text = a.answer.text;
    } else {
      ({ status, headers, body } = a);
    }
    const query = queryOf(req.originalUrl);
    const view: BrowsableView = {
      name: a.name,
      description: a.description,
      method: req.method,
      fullPath: this.prefix + req.originalUrl,
      status,
      headers,
      body,
      text,
      breadcrumbs: breadcrumbs(req.path, this.prefix),
      nav: navView(session, this.prefix, safeNext(this.prefix + req.originalUrl, this.prefix)),
      csrfToken: session?.csrfToken ?? null,
      filters: req.method === 'GET' && isObject(body) && Array.isArray(body.results) ? withoutFormat(query) : undefined,
      jsonHref: `${this.prefix}${req.path}?${[withoutFormat(query), 'format=json'].filter(Boolean).join('&')}`,
      forms: a.forms,
    };
    // a page has a body: an answer without one (204 after a DELETE) is shown inside a 200
    sendBrowsable(res, status === 204 || status === 304 ? 200 : status, renderBrowsable(view));
  }
}

/** The request's headers a write needs, added to the gateway's own. */
function withPassed(headers: Record<string, string>, req: Request): Record<string, string> {
  const out = { ...headers };
  for (const h of PASSED_HEADERS) {
    const v = req.headers[h];
    if (typeof v === 'string') out[h] = v;
  }
  return out;
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A write's body from the page, whole (a service takes JSON of at most MAX_BODY_SIZE: larger is a 413, read to its end so the connection stays usable). */
function readBody(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = Number(req.headers['content-length'] ?? 0) > limit;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) over = true;
      if (!over) chunks.push(chunk);
    });
    req.once('end', () => (over ? reject(new PayloadTooLarge(limit)) : resolve(Buffer.concat(chunks))));
    req.once('error', reject);
  });
}
