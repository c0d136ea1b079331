import type { Hop } from '@inventory/rest';

/**
 * NetBox's site-scope filters of objects that belong to a site, beyond `site`
 * and `site_id`: the site's region and group, each matching the given nodes
 * and their descendants (hops of the object's `site` relation, through this
 * service's projections of dcim's sites, regions and site groups).
 */
export const SITE_SCOPE_HOPS: Hop[] = [
  { name: 'region', via: 'region', to: 'dcim.region', key: 'slug', tree: true },
  { name: 'region_id', via: 'region', to: 'dcim.region', key: 'id', tree: true },
  { name: 'site_group', via: 'group', to: 'dcim.sitegroup', key: 'slug', tree: true },
  { name: 'site_group_id', via: 'group', to: 'dcim.sitegroup', key: 'id', tree: true },
];

/** A virtual machine's cluster's group and type (`cluster_group`, `cluster_type` by slug, and by id). */
export const CLUSTER_HOPS: Hop[] = [
  { name: 'cluster_group_id', via: 'group', to: 'virtualization.clustergroup', key: 'id' },
  { name: 'cluster_group', via: 'group', to: 'virtualization.clustergroup', key: 'slug' },
  { name: 'cluster_type_id', via: 'type', to: 'virtualization.clustertype', key: 'id' },
  { name: 'cluster_type', via: 'type', to: 'virtualization.clustertype', key: 'slug' },
];

/** A component's machine's cluster (`cluster_id`, and `cluster` by name). */
export const MACHINE_CLUSTER_HOPS: Hop[] = [
  { name: 'cluster_id', via: 'cluster', to: 'virtualization.cluster', key: 'id' },
  { name: 'cluster', via: 'cluster', to: 'virtualization.cluster', key: 'name' },
];
