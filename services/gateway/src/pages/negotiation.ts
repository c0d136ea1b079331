/**
 * DRF's content negotiation (DefaultContentNegotiation), for the two
 * renderers NetBox has: JSON first, then the browsable API's HTML.
 *
 * `?format=json` or `?format=api` picks one outright. Otherwise the Accept
 * header's media types are taken by precedence, most specific first (with
 * parameters other than q, then type/subtype, then type/*, then *\/*); within
 * the first level that matches a renderer, JSON wins. Quality values do not
 * order anything (DRF ignores them), except that q=0 means "not this" here.
 * So `*\/*` (curl) and no Accept get JSON, `application/json` (pynetbox)
 * gets JSON, and a browser's `text/html,...,*\/*;q=0.8` gets HTML.
 * Nothing acceptable: JSON (DRF would answer 406; API clients see no change).
 */
export function prefersHtml(accept: string | undefined, format: string | null | undefined): boolean {
  if (format === 'json') return false;
  if (format === 'api') return true;
  if (!accept || !accept.includes('/')) return false;
  const levels: [json: boolean, html: boolean][] = [
    [false, false],
    [false, false],
    [false, false],
    [false, false],
  ];
  for (const entry of accept.split(',')) {
    const [type, ...params] = entry.split(';').map((s) => s.trim().toLowerCase());
    const slash = type.indexOf('/');
    if (slash <= 0) continue;
    const main = type.slice(0, slash);
    const sub = type.slice(slash + 1);
    const names = params.map((p) => p.split('=')[0].trim()).filter(Boolean);
    if (params.some((p) => /^q\s*=\s*0(\.0*)?$/.test(p))) continue;
    const level = main === '*' ? 0 : sub === '*' ? 1 : names.every((n) => n === 'q') ? 2 : 3;
    const wildMain = main === '*';
    const wildSub = sub === '*';
    if ((wildMain || main === 'application') && (wildSub || sub === 'json')) levels[level][0] = true;
    if ((wildMain || main === 'text') && (wildSub || sub === 'html')) levels[level][1] = true;
  }
  for (let level = 3; level >= 0; level--) {
    const [json, html] = levels[level];
    if (json) return false;
    if (html) return true;
  }
  return false;
}

/** The `format` query parameter of a request URL (null without one), without parsing the rest. */
export function formatParam(url: string): string | null {
  const q = url.indexOf('?');
  if (q < 0 || !url.includes('format=', q)) return null;
  return new URLSearchParams(url.slice(q + 1)).get('format');
}
