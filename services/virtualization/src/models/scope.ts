import type { Hop } from '@inventory/rest';

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
