/** limit/offset pagination exactly as NetBox 3.7 (A.6). */
export interface Page {
  limit: number | null; // null = no paging (MAX_PAGE_SIZE disabled and limit=0)
  offset: number;
}

/** A non-negative integer parameter; however large, it is clamped (an offset past the data is simply an empty page). */
function intParam(value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value.trim())) return null;
  return Math.min(Number(value), Number.MAX_SAFE_INTEGER);
}

export function parsePage(params: URLSearchParams, paginateCount: number, maxPageSize: number): Page {
  const offset = intParam(params.get('offset')) ?? 0;
  const requested = intParam(params.get('limit'));
  let limit: number | null;
  if (requested === null) limit = paginateCount; // missing, negative or not a number
  else if (requested === 0) limit = maxPageSize > 0 ? maxPageSize : null;
  else limit = maxPageSize > 0 ? Math.min(requested, maxPageSize) : requested;
  return { limit, offset };
}

/** Rebuilds the query string: parameters re-encoded and sorted by name, repeats kept. */
export function withParams(url: URL, set: Record<string, string | null>): string {
  const params = new URLSearchParams(url.search);
  for (const [k, v] of Object.entries(set)) {
    if (v === null) params.delete(k);
    else params.set(k, v);
  }
  params.sort();
  const qs = params.toString();
  return `${url.origin}${url.pathname}${qs ? `?${qs}` : ''}`;
}

export function pageLinks(requestUrl: URL, page: Page, count: number): { next: string | null; previous: string | null } {
  if (page.limit === null) return { next: null, previous: null };
  const { limit, offset } = page;
  const next = offset + limit >= count ? null : withParams(requestUrl, { limit: String(limit), offset: String(offset + limit) });
  let previous: string | null = null;
  if (offset > 0) {
    previous = offset - limit <= 0 ? withParams(requestUrl, { limit: String(limit), offset: null }) : withParams(requestUrl, { limit: String(limit), offset: String(offset - limit) });
  }
  return { next, previous };
}
