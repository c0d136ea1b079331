import { API_VERSION } from '../endpoints/status';
import { isObject } from './browsable-forms';

/** How the browsable page names and describes what it shows (pure: from the path, the OPTIONS body and the answer's headers). */

/** Answer headers that describe the connection, not the API's answer, are not shown; API-Version is the gateway's (added once). */
const HIDDEN_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date', 'api-version']);
/** DRF/NetBox names of the area root views. */
const AREA_NAMES: Record<string, string> = { dcim: 'DCIM', ipam: 'IPAM', vpn: 'VPN' };

/** The answer's headers as DRF's page shows them: sorted, the transport's left out, API-Version added as the client gets it. */
export function shownHeaders(headers: Headers): [string, string][] {
  const out: [string, string][] = [['API-Version', API_VERSION]];
  headers.forEach((value, name) => {
    if (!HIDDEN_HEADERS.has(name)) out.push([headerName(name), value]);
  });
  return out.sort(([a], [b]) => a.localeCompare(b));
}

/** `x-request-id` → `X-Request-ID`, `etag` → `ETag`. */
function headerName(name: string): string {
  if (name === 'etag') return 'ETag';
  return name
    .split('-')
    .map((w) => (w === 'id' || w === 'api' ? w.toUpperCase() : w.charAt(0).toUpperCase() + w.slice(1)))
    .join('-');
}

export type PathKind = 'list' | 'detail' | 'other';

/** `/api/<area>/<endpoint>/` is a list, one more segment a detail, anything else (actions) neither. */
export function pathKind(path: string): PathKind {
  const segments = path.split('/').filter(Boolean);
  if (segments.length === 3) return 'list';
  if (segments.length === 4 && !/^[a-z]+(-[a-z]+)*$/.test(segments[3])) return 'detail';
  return 'other';
}

/** DRF's view name: the model's name (OPTIONS) with "List" or "Instance", else the path's last segment. */
export function endpointName(path: string, options: unknown): string {
  const name = isObject(options) && typeof options.name === 'string' && options.name ? options.name : null;
  if (!name) return titleOf(path);
  const kind = pathKind(path);
  return kind === 'list' ? `${name} List` : kind === 'detail' ? `${name} Instance` : name;
}

/** The name of a view from its path: `available-ips` → "Available Ips", an area → "DCIM", `/api/` → "API Root". */
export function titleOf(path: string): string {
  const segments = path.split('/').filter(Boolean);
  if (segments.length <= 1) return 'API Root';
  const last = segments[segments.length - 1];
  if (segments.length === 2 && AREA_NAMES[last]) return AREA_NAMES[last];
  return last
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

/** API Root / Tenancy / Tenants / 7: a link per ancestor path. */
export function breadcrumbs(path: string, prefix: string): [string, string][] {
  const segments = path.split('/').filter(Boolean);
  const out: [string, string][] = [];
  for (let i = 1; i <= segments.length; i++) {
    const p = `/${segments.slice(0, i).join('/')}/`;
    out.push([i === 1 ? 'API Root' : i === 2 ? titleOf(p) : segments[i - 1], prefix + p]);
  }
  return out;
}

export function queryOf(url: string): string {
  const q = url.indexOf('?');
  return q >= 0 ? url.slice(q + 1) : '';
}

/** The query string as sent, without its `format` parameter (the filters, for the filter box and the json link). */
export function withoutFormat(query: string): string {
  return query
    .split('&')
    .filter((part) => part && part.split('=')[0] !== 'format')
    .join('&');
}

