/**
 * The models an import copies, in dependency order: what an object refers
 * to is copied before it (trees parent first, by depth; cables after every
 * kind of end; contact assignments, journal entries and config contexts
 * after what they name). A reference that forms a cycle (a device's primary
 * IPs are addresses assigned to its own interfaces; a virtual chassis's
 * master is one of its members) is `deferred`: left out on create and set
 * in a second pass, once both ends exist. Deletions run in the reverse order
 * (dependents first).
 */
export interface Step {
  /** The list endpoint, e.g. `/api/dcim/sites/`. */
  path: string;
  /** Fields set in the second pass. */
  deferred?: string[];
  /** Read with these query parameters (a device's config context is computed, not stored, and costly to render). */
  read?: string;
  /** Only with `--tokens`. */
  tokens?: boolean;
  /** Writable fields our request schema does not list (a cable's ends: computed on read, written as lists of ends). */
  writes?: string[];
}

const PRIMARY_IPS = ['primary_ip4', 'primary_ip6'];
const COMPUTED_CONTEXT = 'exclude=config_context';

export const PLAN: Step[] = [
  { path: '/api/users/groups/' },
  { path: '/api/users/users/' },
  { path: '/api/extras/tags/' },
  { path: '/api/extras/custom-field-choice-sets/' },
  { path: '/api/extras/custom-fields/' },
  { path: '/api/extras/custom-links/' },
  { path: '/api/extras/export-templates/' },
  { path: '/api/extras/saved-filters/' },
  { path: '/api/extras/webhooks/' },
  { path: '/api/extras/event-rules/' },
  { path: '/api/extras/config-templates/' },
  { path: '/api/tenancy/tenant-groups/' },
  { path: '/api/tenancy/tenants/' },
  { path: '/api/tenancy/contact-groups/' },
  { path: '/api/tenancy/contact-roles/' },
  { path: '/api/tenancy/contacts/' },
  { path: '/api/dcim/regions/' },
  { path: '/api/dcim/site-groups/' },
  { path: '/api/dcim/sites/' },
  { path: '/api/dcim/locations/' },
  { path: '/api/dcim/rack-roles/' },
  { path: '/api/dcim/racks/' },
  { path: '/api/dcim/rack-reservations/' },
  { path: '/api/dcim/manufacturers/' },
  { path: '/api/dcim/device-roles/' },
  { path: '/api/dcim/platforms/' },
  { path: '/api/dcim/device-types/' },
  { path: '/api/dcim/module-types/' },
  { path: '/api/dcim/console-port-templates/' },
  { path: '/api/dcim/console-server-port-templates/' },
  { path: '/api/dcim/power-port-templates/' },
  { path: '/api/dcim/power-outlet-templates/' },
  { path: '/api/dcim/interface-templates/' },
  { path: '/api/dcim/rear-port-templates/' },
  { path: '/api/dcim/front-port-templates/' },
  { path: '/api/dcim/module-bay-templates/' },
  { path: '/api/dcim/device-bay-templates/' },
  { path: '/api/dcim/inventory-item-roles/' },
  { path: '/api/dcim/inventory-item-templates/' },
  { path: '/api/ipam/rirs/' },
  { path: '/api/ipam/aggregates/' },
  { path: '/api/ipam/asn-ranges/' },
  { path: '/api/ipam/asns/' },
  { path: '/api/ipam/roles/' },
  { path: '/api/ipam/route-targets/' },
  { path: '/api/ipam/vrfs/' },
  { path: '/api/ipam/vlan-groups/' },
  { path: '/api/ipam/vlans/' },
  { path: '/api/wireless/wireless-lan-groups/' },
  { path: '/api/wireless/wireless-lans/' },
  { path: '/api/virtualization/cluster-types/' },
  { path: '/api/virtualization/cluster-groups/' },
  { path: '/api/virtualization/clusters/' },
  { path: '/api/dcim/virtual-chassis/', deferred: ['master'] },
  { path: '/api/dcim/devices/', deferred: [...PRIMARY_IPS, 'oob_ip'], read: COMPUTED_CONTEXT },
  { path: '/api/dcim/virtual-device-contexts/', deferred: PRIMARY_IPS },
  // a module bay of a module refers to the module, installed in a bay: the bays first, their module after
  { path: '/api/dcim/module-bays/', deferred: ['module'] },
  { path: '/api/dcim/modules/' },
  { path: '/api/dcim/console-ports/' },
  { path: '/api/dcim/console-server-ports/' },
  { path: '/api/dcim/power-panels/' },
  { path: '/api/dcim/power-feeds/' },
  { path: '/api/dcim/power-ports/' },
  { path: '/api/dcim/power-outlets/' },
  { path: '/api/dcim/interfaces/', deferred: ['parent', 'bridge', 'lag'] },
  { path: '/api/dcim/rear-ports/' },
  { path: '/api/dcim/front-ports/' },
  { path: '/api/dcim/device-bays/' },
  { path: '/api/dcim/inventory-items/' },
  { path: '/api/circuits/providers/' },
  { path: '/api/circuits/provider-accounts/' },
  { path: '/api/circuits/provider-networks/' },
  { path: '/api/circuits/circuit-types/' },
  { path: '/api/circuits/circuits/' },
  { path: '/api/circuits/circuit-terminations/' },
  { path: '/api/virtualization/virtual-machines/', deferred: PRIMARY_IPS, read: COMPUTED_CONTEXT },
  { path: '/api/virtualization/interfaces/', deferred: ['parent', 'bridge'] },
  { path: '/api/virtualization/virtual-disks/' },
  { path: '/api/ipam/prefixes/' },
  { path: '/api/ipam/ip-ranges/' },
  { path: '/api/ipam/ip-addresses/', deferred: ['nat_inside'] },
  { path: '/api/ipam/fhrp-groups/' },
  { path: '/api/ipam/fhrp-group-assignments/' },
  { path: '/api/ipam/service-templates/' },
  { path: '/api/ipam/services/' },
  { path: '/api/vpn/ike-proposals/' },
  { path: '/api/vpn/ike-policies/' },
  { path: '/api/vpn/ipsec-proposals/' },
  { path: '/api/vpn/ipsec-policies/' },
  { path: '/api/vpn/ipsec-profiles/' },
  { path: '/api/vpn/tunnel-groups/' },
  { path: '/api/vpn/tunnels/' },
  { path: '/api/vpn/tunnel-terminations/' },
  { path: '/api/vpn/l2vpns/' },
  { path: '/api/vpn/l2vpn-terminations/' },
  { path: '/api/dcim/cables/', writes: ['a_terminations', 'b_terminations'] },
  { path: '/api/wireless/wireless-links/' },
  { path: '/api/tenancy/contact-assignments/' },
  { path: '/api/extras/journal-entries/' },
  { path: '/api/extras/config-contexts/' },
  { path: '/api/extras/bookmarks/' },
  { path: '/api/users/permissions/' },
  { path: '/api/users/tokens/', tokens: true },
];

/**
 * What is not copied, and why (the summary and the decision record say so):
 * files and their sync state live outside the API, logs are the source's own
 * history, and the rest is derived from what is copied.
 */
export const NOT_COPIED: Record<string, string> = {
  '/api/core/data-sources/': 'a data source is synced from its remote; add it and sync it here',
  '/api/core/data-files/': 'synced from a data source, not written over the API',
  '/api/core/jobs/': 'the source\'s own background jobs',
  '/api/extras/image-attachments/': 'the image files are not served by the REST API',
  '/api/extras/object-changes/': 'the source\'s change log is its own history (read-only over the API)',
  '/api/dcim/cable-terminations/': 'made by the cables that are copied',
  '/api/users/config/': 'per-user preferences of the UI',
};

/** `dcim.sites`-style name of a step, for progress lines and messages. */
export function modelName(path: string): string {
  const [, , app, endpoint] = path.split('/');
  return `${app}.${endpoint}`;
}
