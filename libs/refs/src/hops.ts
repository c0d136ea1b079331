/**
 * NetBox's site-scope filters of objects that belong to a site, beyond
 * `site` and `site_id`: the site's region and group (`region`, `region_id`,
 * `site_group`, `site_group_id`), each matching the given nodes and their
 * descendants. Declared as hops of the object's `site` relation (libs/rest
 * `Hop`) by every service whose models name a site: dcim's own, and the
 * others' through their projections of dcim's sites, regions and groups.
 */
export const SITE_SCOPE_HOPS: { name: string; via: string; to: string; key: 'id' | 'slug'; tree: boolean }[] = [
  { name: 'region', via: 'region', to: 'dcim.region', key: 'slug', tree: true },
  { name: 'region_id', via: 'region', to: 'dcim.region', key: 'id', tree: true },
  { name: 'site_group', via: 'group', to: 'dcim.sitegroup', key: 'slug', tree: true },
  { name: 'site_group_id', via: 'group', to: 'dcim.sitegroup', key: 'id', tree: true },
];
