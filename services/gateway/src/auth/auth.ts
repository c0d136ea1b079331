import type { NextFunction, Request, Response } from 'express';
import { NotAuthenticated, PermissionDenied } from '@inventory/core';
import type { Identity } from '@inventory/auth';
import { csrfFailed, submittedCsrf } from './csrf';
import { ANONYMOUS, locals } from './identity';
import { clientIp } from '../forwarding/forwarded';
import { parseAuthorization, type TokenVerifier } from './tokens';
import { ROOT_AREAS } from '../forwarding/routing';
import type { Sessions } from './session';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const PROVISION_PATH = '/api/users/tokens/provision/';
/** A POST that only reads (GraphQL has no mutations here): a read-only token may send it, a session needs no CSRF token. */
const READING_POST = '/graphql/';

/**
 * Paths that answer anonymous callers even with LOGIN_REQUIRED (NetBox quirk
 * Q11: clients read the API-Version header from /api/ before they send a
 * token), plus the documentation and schema.
 */
function isOpenPath(path: string): boolean {
  if (path === '/api/' || path === '/api/docs/' || path === '/api/schema/' || path === '/api/schema/events/') return true;
  const m = /^\/api\/([^/]+)\/$/.exec(path);
  return !!m && (ROOT_AREAS as readonly string[]).includes(m[1]);
}

/** A write-disabled token may only read (checked before any model permission, as in NetBox). */
export function requireWritable(method: string | undefined, identity: Identity): void {
  if (!SAFE_METHODS.has(method ?? 'GET') && !identity.token?.write_enabled) throw new PermissionDenied();
}

/**
 * Authentication at the edge, in NetBox's order: a presented token is always
 * verified (even where none is needed); a write-disabled token may not write;
 * an anonymous caller may read (the services then decide with
 * EXEMPT_VIEW_PERMISSIONS) but not write. Without a token, a valid session
 * cookie stands for its user (identity.token null: write_enabled does not
 * apply), and its unsafe requests need the session's CSRF token in
 * X-CSRFToken. Sets `locals(res).identity`.
 */
export function authenticate(verifier: TokenVerifier, loginRequired: boolean, sessions?: Sessions) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const path = req.path;
    const safe = SAFE_METHODS.has(req.method) || (req.method === 'POST' && path === READING_POST);
    const provision = req.method === 'POST' && path === PROVISION_PATH;
    const credentials = parseAuthorization(req.headers.authorization);

    if (credentials.kind === 'none') {
      // no token: a browser's session cookie (UI login) authenticates instead; unsafe methods then need the CSRF token
      const session = !provision && sessions ? await sessions.fromRequest(req, res) : null;
      if (sessions && session) {
        if (!safe && !sessions.csrf.checkSession(session.sid, submittedCsrf(req))) throw csrfFailed();
        locals(res).identity = session.identity;
        return next();
      }
      // provisioning is how a client gets its first token: it is never refused for want of one
      if (!provision && (!safe || (loginRequired && !isOpenPath(path)))) throw new NotAuthenticated();
      locals(res).identity = ANONYMOUS;
      return next();
    }

    const verified = await verifier.verify(credentials.key, clientIp(req));
    if (provision) {
      // provisioning authenticates by username and password; a valid token neither helps nor hurts
      locals(res).identity = ANONYMOUS;
      return next();
    }
    requireWritable(safe ? 'GET' : req.method, verified.identity);
    locals(res).identity = verified.identity;
    next();
  };
}
