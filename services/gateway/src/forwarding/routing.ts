/**
 * Which service answers a path under /api/. The table is static: an area is
 * owned by the service of the same name, except the areas NetBox 3.7 split
 * out of older ones (served beside the models they reference: decision 028)
 * and the webhook and event rule endpoints, which live in the webhooks
 * dispatcher although NetBox files them under extras.
 */

/** Areas served by a backend service (plugins is answered by the gateway itself). */
export const SERVICE_AREAS = ['circuits', 'core', 'dcim', 'extras', 'ipam', 'tenancy', 'users', 'virtualization', 'vpn', 'wireless'] as const;

/** Areas owned by a service of another name. */
const AREA_OWNERS: Record<string, string> = { core: 'extras', vpn: 'ipam', wireless: 'dcim' };

/** The service that owns an area (its root's endpoint map). */
export function areaOwner(area: string): string {
  return AREA_OWNERS[area] ?? area;
}

/** The keys of GET /api/, in NetBox's order (seed list of areas). */
export const ROOT_AREAS = ['circuits', 'core', 'dcim', 'extras', 'ipam', 'plugins', 'tenancy', 'users', 'virtualization', 'vpn', 'wireless'] as const;

/** Endpoints (first segment under the area) owned by another service than the area's. */
const ENDPOINT_OWNERS: Record<string, Record<string, string>> = {
  extras: { webhooks: 'webhooks', 'webhook-deliveries': 'webhooks', 'event-rules': 'webhooks' },
};

/**
 * Single paths owned by another service than their endpoint's: the cable paths through a circuit's end
 * are dcim's; a user's dashboard is the users service's (their own data, gone with them).
 */
const PATH_OWNERS: [RegExp, string][] = [
  [/^circuits\/circuit-terminations\/[^/]+\/paths\/$/, 'dcim'],
  [/^extras\/dashboard\/$/, 'users'],
];

export interface Route {
  area: string;
  /** The service that owns the path. */
  service: string;
  /** True for the area root `/api/<area>/`. */
  root: boolean;
}

/** Resolves `/api/<area>/...` (path without query); null when the area is unknown. */
export function routeFor(pathname: string): Route | null {
  const m = /^\/api\/([^/]+)\/(.*)$/.exec(pathname);
  if (!m || hasDotSegments(pathname)) return null;
  const [, area, rest] = m;
  if (!(SERVICE_AREAS as readonly string[]).includes(area)) return null;
  const endpoint = rest.split('/')[0];
  const owner = PATH_OWNERS.find(([pattern]) => pattern.test(`${area}/${rest}`))?.[1];
  return { area, service: owner ?? ENDPOINT_OWNERS[area]?.[endpoint] ?? areaOwner(area), root: rest === '' };
}

/** Services whose endpoints appear in an area's listing (the owner first). */
export function areaContributors(area: string): string[] {
  return [areaOwner(area), ...new Set(Object.values(ENDPOINT_OWNERS[area] ?? {}))];
}

/**
 * `..` or `.` segments, also percent-encoded: nothing legitimate uses them, and
 * a server behind us that normalised them could be walked out of /api/ (to /internal/).
 */
export function hasDotSegments(pathname: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return true;
  }
  return /(^|[/\\])\.{1,2}([/\\]|$)/.test(decoded);
}
