import type { Row } from '@inventory/rest';

/**
 * The base of a page's absolute URLs (scheme and host, or '' where URLs are
 * relative), read off a representation's own `url` (`<base>/api/...`): the
 * decorate hooks build nested objects of other models with the same base.
 */
export function baseOf(rep: Row): string {
  const url = String(rep.url ?? '');
  const at = url.indexOf('/api/');
  return at > 0 ? url.slice(0, at) : '';
}
