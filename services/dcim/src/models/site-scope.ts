import type { Hop } from '@inventory/rest';

/**
 * NetBox's site-scope filters of objects that belong to a site, beyond `site`
 * and `site_id`: the site's region and group, each matching the given nodes
 * and their descendants (declared as hops of the object's `site` relation).
 */
export const SITE_SCOPE_HOPS: Hop[] = [
  { name: 'region', via: 'region', to: 'dcim.region', key: 'slug', tree: true },
  { name: 'region_id', via: 'region', to: 'dcim.region', key: 'id', tree: true },
  { name: 'site_group', via: 'group', to: 'dcim.sitegroup', key: 'slug', tree: true },
  { name: 'site_group_id', via: 'group', to: 'dcim.sitegroup', key: 'id', tree: true },
];
