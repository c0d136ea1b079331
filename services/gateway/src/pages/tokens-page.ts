import type { Express, Request, Response } from 'express';
import { ServiceUnavailable } from '@inventory/core';
import { IDENTITY_HEADER } from '@inventory/auth';
import { CSRF_PAGE_FAILED, submittedCsrf } from '../auth/csrf';
import { forwardedFor } from '../forwarding/forwarded';
import { locals } from '../auth/identity';
import {
  LOGIN_PATH,
  TOKENS_PATH,
  allow,
  errorMessages,
  errorPage,
  formBody,
  formField,
  navView,
  pageRoute,
  pathPrefix,
  sendPage,
  type PageDeps,
} from './page-html';
import type { ActiveSession } from '../auth/session';
import { renderPage } from './templates';

const USERS_TIMEOUT_MS = 10_000;
/** More tokens than anybody keeps; the page lists one page of them. */
const LIST_LIMIT = 1000;

/** A token as the users service represents it (only what the page uses). */
interface TokenRow {
  id: number;
  created?: string | null;
  expires?: string | null;
  last_used?: string | null;
  write_enabled?: boolean;
  description?: string;
  key?: string;
  display?: string;
}

interface CreateForm {
  expires: string;
  write_enabled: boolean;
  description: string;
}

const EMPTY_FORM: CreateForm = { expires: '', write_enabled: true, description: '' };

interface PageState {
  /** The key of a token created by this request: shown once, never again. */
  newKey?: string;
  errors?: string[];
  form?: CreateForm;
}

/** An answer of the users service's REST API. */
interface ApiAnswer {
  status: number;
  body: unknown;
}

/** `2030-01-31T12:00` (a datetime-local value, shown as UTC) → `2030-01-31T12:00:00Z`; anything else as typed (users validates it). */
export function expiresFromForm(value: string): string | null {
  const v = value.trim();
  if (!v) return null;
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(?:\.\d{1,6})?)?$/.exec(v);
  return m ? `${m[1]}T${m[2]}${m[3] ?? ':00'}Z` : v;
}

/** The last 6 characters of the key, the rest masked (from `display` when the key itself is not readable). */
export function maskedKey(row: TokenRow): string {
  const source = typeof row.key === 'string' && row.key.length >= 6 ? row.key : typeof row.display === 'string' ? row.display : '';
  return `${'*'.repeat(8)}${source.slice(-6)}`;
}

/** A time as the page shows it (`2030-01-31 12:00 UTC`; a value that is not one, as it is), or null when there is none. */
function when(value: string | null | undefined): { datetime: string; shown: string } | null {
  if (!value) return null;
  const t = Date.parse(value);
  return { datetime: value, shown: Number.isNaN(t) ? value : `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC` };
}

function tokensPage(prefix: string, session: ActiveSession, tokens: TokenRow[], state: PageState): string {
  return renderPage('tokens', {
    nav: navView(session, prefix, prefix + TOKENS_PATH),
    csrfToken: session.csrfToken,
    createHref: prefix + TOKENS_PATH,
    newKey: state.newKey,
    errors: state.errors ?? [],
    tokens: tokens.map((t) => ({
      id: t.id,
      created: when(t.created),
      expires: when(t.expires),
      writeEnabled: t.write_enabled,
      description: t.description,
      key: maskedKey(t),
      deleteHref: `${prefix}${TOKENS_PATH}${t.id}/delete/`,
    })),
    form: state.form ?? EMPTY_FORM,
  });
}

/** The users service's REST API as the signed-in user (an identity minted from the session); a write there drops the gateway's auth caches. */
function usersApi(deps: PageDeps): (req: Request, res: Response, session: ActiveSession, method: string, path: string, body?: unknown) => Promise<ApiAnswer> {
  const { minter, usersUrl, publicUrl } = deps;
  return async (req, res, session, method, path, body) => {
    if (!usersUrl) throw new ServiceUnavailable('Service users is unavailable.');
    const f = forwardedFor(req, publicUrl);
    let answer: globalThis.Response;
    try {
      answer = await fetch(usersUrl + path, {
        method,
        headers: {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          [IDENTITY_HEADER]: minter.mint(session.identity, 'users'),
          'x-request-id': locals(res).requestId,
          'x-forwarded-host': f.host,
          'x-forwarded-proto': f.proto,
          'x-forwarded-for': f.for,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(USERS_TIMEOUT_MS),
      });
    } catch {
      throw new ServiceUnavailable('Service users is unavailable.');
    }
    const text = await answer.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (answer.status >= 500) throw new ServiceUnavailable('Service users is unavailable.');
    if (method !== 'GET' && answer.status < 400) deps.onUsersWrite();
    return { status: answer.status, body: parsed };
  };
}

/**
 * `/user/api-tokens/`: the signed-in user's own tokens. Everything goes
 * through the users service's REST API as that user (an identity minted from
 * the session), so the users service applies its usual rules: own tokens
 * only, validation, change logging, gateway cache invalidation.
 */
export function mountTokenPages(app: Express, deps: PageDeps): void {
  const { sessions, publicUrl } = deps;
  const prefix = pathPrefix(publicUrl);

  /** The session, or null after answering with a redirect to the login page. */
  const signedIn = async (req: Request, res: Response): Promise<ActiveSession | null> => {
    const session = await sessions.fromRequest(req, res);
    if (!session) res.redirect(302, `${prefix}${LOGIN_PATH}?next=${encodeURIComponent(prefix + TOKENS_PATH)}`);
    return session;
  };

  const api = usersApi(deps);

  const render = async (req: Request, res: Response, session: ActiveSession, status: number, state: PageState): Promise<void> => {
    const list = await api(req, res, session, 'GET', `/api/users/tokens/?user_id=${session.userId}&limit=${LIST_LIMIT}`);
    const results = (list.body as { results?: unknown } | undefined)?.results;
    let tokens: TokenRow[] = [];
    const errors = [...(state.errors ?? [])];
    if (list.status === 200 && Array.isArray(results)) tokens = results as TokenRow[];
    else errors.push(...errorMessages(list.body ?? new Error('Your tokens could not be listed.')));
    sendPage(res, status, tokensPage(prefix, session, tokens, { ...state, errors }));
  };

  const csrfOk = (req: Request, session: ActiveSession): boolean => sessions.csrf.checkSession(session.sid, submittedCsrf(req));

  app.all(TOKENS_PATH, allow(['GET', 'POST']), formBody, pageRoute(publicUrl, async (req, res) => {
    const session = await signedIn(req, res);
    if (!session) return;
    if (req.method !== 'POST') return render(req, res, session, 200, {});
    if (!csrfOk(req, session)) return errorPage(res, 403, CSRF_PAGE_FAILED, session, prefix);

    const form: CreateForm = {
      expires: formField(req.body, 'expires'),
      write_enabled: formField(req.body, 'write_enabled') !== '',
      description: formField(req.body, 'description'),
    };
    const created = await api(req, res, session, 'POST', '/api/users/tokens/', {
      user: session.userId,
      expires: expiresFromForm(form.expires),
      write_enabled: form.write_enabled,
      description: form.description,
    });
    if (created.status !== 201) return render(req, res, session, created.status, { errors: errorMessages(created.body ?? new Error('The token could not be created.')), form });
    const key = (created.body as TokenRow | undefined)?.key;
    // rendered in the answer to the POST (not kept anywhere for a later page): the one time the key is shown
    if (typeof key === 'string' && key) return render(req, res, session, 201, { newKey: key });
    return render(req, res, session, 201, { errors: ['The token was created, but the users service did not return its key.'] });
  }));

  app.all(`${TOKENS_PATH}:id/delete/`, allow(['POST']), formBody, pageRoute(publicUrl, async (req, res) => {
    const session = await signedIn(req, res);
    if (!session) return;
    if (!csrfOk(req, session)) return errorPage(res, 403, CSRF_PAGE_FAILED, session, prefix);
    const id = String(req.params.id);
    if (!/^\d{1,15}$/.test(id)) return render(req, res, session, 404, { errors: ['Not found.'] });
    const deleted = await api(req, res, session, 'DELETE', `/api/users/tokens/${id}/`);
    if (deleted.status === 204 || deleted.status === 200) {
      res.redirect(303, prefix + TOKENS_PATH);
      return;
    }
    return render(req, res, session, deleted.status, { errors: errorMessages(deleted.body ?? new Error('The token could not be deleted.')) });
  }));
}
