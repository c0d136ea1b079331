import type { Express, NextFunction, Request, Response } from 'express';
import { HttpError, NotAuthenticated, PermissionDenied, ServiceUnavailable } from '@inventory/core';
import { baseUrl } from '../forwarding/forwarded';
import type { BrowsableApi } from '../pages/browsable';
import { titleOf } from '../pages/browsable-view';
import { wantsHtml } from '../pages/html';
import { locals, type IdentityMinter } from '../auth/identity';
import type { ServiceProxies } from '../forwarding/proxy';
import { ROOT_AREAS, areaContributors, areaOwner, type Route } from '../forwarding/routing';
import { ownRoute } from './methods';
import { onBehalfOf } from '../forwarding/service-call';

const AREA_MAP_TIMEOUT_MS = 10_000;

/** GET /api/ and the plugins area, which the gateway answers itself. */
export function mountRoot(app: Express, publicUrl: string | undefined, pages: BrowsableApi): void {
  ownRoute(app, '/api/', (req) => {
    const base = baseUrl(req, publicUrl);
    return Object.fromEntries(ROOT_AREAS.map((a) => [a, `${base}/api/${a}/`]));
  }, { name: 'API Root', pages });
  ownRoute(app, '/api/plugins/', (req) => ({ 'installed-plugins': `${baseUrl(req, publicUrl)}/api/plugins/installed-plugins/` }), { name: 'Plugins', pages });
  ownRoute(app, '/api/plugins/installed-plugins/', (_req, res) => {
    // NetBox: staff users only; there are no plugins to list
    const user = locals(res).identity.user;
    if (!user) throw new NotAuthenticated();
    if (!user.is_staff && !user.is_superuser) throw new PermissionDenied();
    return [];
  }, { pages });
}

/**
 * `/api/<area>/`: the owning service answers its endpoint map. When another
 * service contributes endpoints to the area (webhooks under extras) or the
 * caller wants HTML, the gateway fetches the maps itself and merges or renders
 * them; otherwise the request is simply proxied.
 */
export function areaRoot(urls: Record<string, string>, proxies: ServiceProxies, minter: IdentityMinter, publicUrl: string | undefined, pages: BrowsableApi) {
  return async (route: Route, req: Request, res: Response, next: NextFunction): Promise<void> => {
    const deployed = areaContributors(route.area).filter((s) => s in urls);
    const html = wantsHtml(req);
    const owner = areaOwner(route.area);
    if (!html && deployed.length === 1 && deployed[0] === owner) return proxies.forward(owner, req, res, next);
    const maps = await Promise.all(deployed.map((s) => fetchAreaMap(s, urls[s], route.area, req, res, minter, publicUrl, s === owner)));
    const merged: Record<string, string> = {};
    for (const key of maps.flatMap((m) => Object.keys(m)).sort()) merged[key] = maps.find((m) => key in m)![key];
    if (html) pages.own(req, res, titleOf(req.path), merged);
    else res.json(merged);
  };
}

/**
 * One service's endpoint map, asked on the caller's behalf (same identity,
 * request id and forwarded host, so the URLs in it are the client's). The
 * owner's refusal is the answer; a contributor that fails is left out.
 */
async function fetchAreaMap(
  service: string,
  url: string,
  area: string,
  req: Request,
  res: Response,
  minter: IdentityMinter,
  publicUrl: string | undefined,
  owner: boolean,
): Promise<Record<string, string>> {
  let answer: globalThis.Response;
  try {
    answer = await fetch(`${url}/api/${area}/`, {
      headers: { accept: 'application/json', ...onBehalfOf(req, res, minter, service, publicUrl) },
      signal: AbortSignal.timeout(AREA_MAP_TIMEOUT_MS),
    });
  } catch {
    if (owner) throw new ServiceUnavailable(`Service ${service} is unavailable.`);
    return {};
  }
  const text = await answer.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = undefined;
  }
  if (!answer.ok || !body || typeof body !== 'object' || Array.isArray(body)) {
    if (!owner) return {};
    if (answer.status >= 500 || body === undefined) throw new ServiceUnavailable(`Service ${service} is unavailable.`);
    throw new HttpError(answer.status, body);
  }
  return body as Record<string, string>;
}
