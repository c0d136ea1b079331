/**
 * The static catalogue of content types: which service owns each model, where
 * its endpoint lives, and which features it supports. Ids are the position in
 * this list, so entries are only ever appended.
 */
export interface ContentType {
  id: number;
  app_label: string;
  model: string;
  /** `app.model` */
  label: string;
  verbose_name: string;
  /** Service that owns the model. */
  service: string;
  /** Endpoint under /api/<app>/ (null for models without one). */
  endpoint: string | null;
  /** `journaling`: NetBox's JournalingMixin, part of every NetBoxModel (journal entries attach to these). */
  features: { tags: boolean; custom_fields: boolean; contacts: boolean; events: boolean; journaling: boolean };
}

const APP_VERBOSE: Record<string, string> = {
  auth: 'Authentication and Authorization',
  circuits: 'Circuits',
  contenttypes: 'Content Types',
  core: 'Core',
  dcim: 'DCIM',
  extras: 'Extras',
  ipam: 'IPAM',
  sessions: 'Sessions',
  tenancy: 'Tenancy',
  users: 'Users',
  virtualization: 'Virtualization',
  vpn: 'VPN',
  wireless: 'Wireless',
};

// [label, verbose name, service, endpoint, flags]; flags: t=tags c=custom fields k=contacts e=events
type Row = [string, string, string, string | null, string];
const ROWS: Row[] = [
  ['auth.group', 'group', 'users', 'groups', ''],
  ['auth.user', 'user', 'users', 'users', ''],
  ['users.token', 'token', 'users', 'tokens', ''],
  ['users.objectpermission', 'permission', 'users', 'permissions', ''],
  ['users.userconfig', 'user preferences', 'users', null, ''],
  ['tenancy.tenantgroup', 'tenant group', 'tenancy', 'tenant-groups', 'tce'],
  ['tenancy.tenant', 'tenant', 'tenancy', 'tenants', 'tcke'],
  ['tenancy.contactgroup', 'contact group', 'tenancy', 'contact-groups', 'tce'],
  ['tenancy.contactrole', 'contact role', 'tenancy', 'contact-roles', 'tce'],
  ['tenancy.contact', 'contact', 'tenancy', 'contacts', 'tce'],
  ['tenancy.contactassignment', 'contact assignment', 'tenancy', 'contact-assignments', 'tce'],
  ['extras.tag', 'tag', 'extras', 'tags', 'e'],
  ['extras.customfield', 'custom field', 'extras', 'custom-fields', 'e'],
  ['extras.customfieldchoiceset', 'custom field choice set', 'extras', 'custom-field-choice-sets', 'e'],
  ['extras.webhook', 'webhook', 'webhooks', 'webhooks', 'tce'],
  ['extras.configcontext', 'config context', 'extras', 'config-contexts', 'e'],
  ['extras.objectchange', 'object change', 'extras', 'object-changes', ''],
  ['extras.journalentry', 'journal entry', 'extras', 'journal-entries', 'tce'],
  ['contenttypes.contenttype', 'content type', 'extras', 'content-types', ''],
  ['dcim.region', 'region', 'dcim', 'regions', 'tcke'],
  ['dcim.sitegroup', 'site group', 'dcim', 'site-groups', 'tcke'],
  ['dcim.site', 'site', 'dcim', 'sites', 'tcke'],
  ['dcim.location', 'location', 'dcim', 'locations', 'tcke'],
  ['dcim.rackrole', 'rack role', 'dcim', 'rack-roles', 'tce'],
  ['dcim.rack', 'rack', 'dcim', 'racks', 'tcke'],
  ['dcim.rackreservation', 'rack reservation', 'dcim', 'rack-reservations', 'tce'],
  ['dcim.manufacturer', 'manufacturer', 'dcim', 'manufacturers', 'tcke'],
  ['dcim.devicetype', 'device type', 'dcim', 'device-types', 'tce'],
  ['dcim.moduletype', 'module type', 'dcim', 'module-types', 'tce'],
  ['dcim.devicerole', 'device role', 'dcim', 'device-roles', 'tce'],
  ['dcim.platform', 'platform', 'dcim', 'platforms', 'tce'],
  ['dcim.device', 'device', 'dcim', 'devices', 'tcke'],
  ['dcim.module', 'module', 'dcim', 'modules', 'tce'],
  ['dcim.interface', 'interface', 'dcim', 'interfaces', 'tce'],
  ['dcim.frontport', 'front port', 'dcim', 'front-ports', 'tce'],
  ['dcim.rearport', 'rear port', 'dcim', 'rear-ports', 'tce'],
  ['dcim.consoleport', 'console port', 'dcim', 'console-ports', 'tce'],
  ['dcim.consoleserverport', 'console server port', 'dcim', 'console-server-ports', 'tce'],
  ['dcim.powerport', 'power port', 'dcim', 'power-ports', 'tce'],
  ['dcim.poweroutlet', 'power outlet', 'dcim', 'power-outlets', 'tce'],
  ['dcim.cable', 'cable', 'dcim', 'cables', 'tce'],
  ['dcim.virtualchassis', 'virtual chassis', 'dcim', 'virtual-chassis', 'tce'],
  ['dcim.powerpanel', 'power panel', 'dcim', 'power-panels', 'tcke'],
  ['dcim.powerfeed', 'power feed', 'dcim', 'power-feeds', 'tce'],
  ['circuits.provider', 'provider', 'circuits', 'providers', 'tcke'],
  ['circuits.provideraccount', 'provider account', 'circuits', 'provider-accounts', 'tcke'],
  ['circuits.providernetwork', 'provider network', 'circuits', 'provider-networks', 'tce'],
  ['circuits.circuittype', 'circuit type', 'circuits', 'circuit-types', 'tce'],
  ['circuits.circuit', 'circuit', 'circuits', 'circuits', 'tcke'],
  ['circuits.circuittermination', 'circuit termination', 'circuits', 'circuit-terminations', 'tce'],
  ['ipam.vrf', 'VRF', 'ipam', 'vrfs', 'tce'],
  ['ipam.routetarget', 'route target', 'ipam', 'route-targets', 'tce'],
  ['ipam.rir', 'RIR', 'ipam', 'rirs', 'tce'],
  ['ipam.aggregate', 'aggregate', 'ipam', 'aggregates', 'tce'],
  ['ipam.asn', 'ASN', 'ipam', 'asns', 'tce'],
  ['ipam.asnrange', 'ASN range', 'ipam', 'asn-ranges', 'tce'],
  ['ipam.role', 'role', 'ipam', 'roles', 'tce'],
  ['ipam.prefix', 'prefix', 'ipam', 'prefixes', 'tce'],
  ['ipam.iprange', 'IP range', 'ipam', 'ip-ranges', 'tce'],
  ['ipam.ipaddress', 'IP address', 'ipam', 'ip-addresses', 'tce'],
  ['ipam.fhrpgroup', 'FHRP group', 'ipam', 'fhrp-groups', 'tce'],
  ['ipam.vlangroup', 'VLAN group', 'ipam', 'vlan-groups', 'tce'],
  ['ipam.vlan', 'VLAN', 'ipam', 'vlans', 'tce'],
  ['ipam.service', 'service', 'ipam', 'services', 'tce'],
  ['ipam.servicetemplate', 'service template', 'ipam', 'service-templates', 'tce'],
  ['virtualization.clustertype', 'cluster type', 'virtualization', 'cluster-types', 'tce'],
  ['virtualization.clustergroup', 'cluster group', 'virtualization', 'cluster-groups', 'tcke'],
  ['virtualization.cluster', 'cluster', 'virtualization', 'clusters', 'tcke'],
  ['virtualization.virtualmachine', 'virtual machine', 'virtualization', 'virtual-machines', 'tcke'],
  ['virtualization.vminterface', 'interface', 'virtualization', 'interfaces', 'tce'],
  ['virtualization.virtualdisk', 'virtual disk', 'virtualization', 'virtual-disks', 'tce'],
  ['extras.webhookdelivery', 'webhook delivery', 'webhooks', 'webhook-deliveries', ''],
  // component templates: change-logged, without tags, custom fields or event rules (NetBox 3.7's ComponentTemplateModel)
  ['dcim.consoleporttemplate', 'console port template', 'dcim', 'console-port-templates', ''],
  ['dcim.consoleserverporttemplate', 'console server port template', 'dcim', 'console-server-port-templates', ''],
  ['dcim.powerporttemplate', 'power port template', 'dcim', 'power-port-templates', ''],
  ['dcim.poweroutlettemplate', 'power outlet template', 'dcim', 'power-outlet-templates', ''],
  ['dcim.interfacetemplate', 'interface template', 'dcim', 'interface-templates', ''],
  ['dcim.frontporttemplate', 'front port template', 'dcim', 'front-port-templates', ''],
  ['dcim.rearporttemplate', 'rear port template', 'dcim', 'rear-port-templates', ''],
  ['dcim.modulebaytemplate', 'module bay template', 'dcim', 'module-bay-templates', ''],
  ['dcim.devicebaytemplate', 'device bay template', 'dcim', 'device-bay-templates', ''],
  // the rest of dcim (issue 10), and extras' config templates
  ['dcim.inventoryitemtemplate', 'inventory item template', 'dcim', 'inventory-item-templates', ''],
  ['dcim.modulebay', 'module bay', 'dcim', 'module-bays', 'tce'],
  ['dcim.devicebay', 'device bay', 'dcim', 'device-bays', 'tce'],
  ['dcim.inventoryitem', 'inventory item', 'dcim', 'inventory-items', 'tce'],
  ['dcim.inventoryitemrole', 'inventory item role', 'dcim', 'inventory-item-roles', 'tce'],
  ['dcim.virtualdevicecontext', 'virtual device context', 'dcim', 'virtual-device-contexts', 'tce'],
  ['dcim.cabletermination', 'cable termination', 'dcim', 'cable-terminations', ''],
  ['extras.configtemplate', 'config template', 'extras', 'config-templates', 'te'],
  // ipam's FHRP group assignments: change-logged, without tags, custom fields or event rules (NetBox 3.7's ChangeLoggedModel)
  ['ipam.fhrpgroupassignment', 'FHRP group assignment', 'ipam', 'fhrp-group-assignments', ''],
  ['extras.imageattachment', 'image attachment', 'extras', 'image-attachments', ''],
  // the rest of extras (issue 13): change-logged, as NetBox 3.7's ChangeLoggedModel; bookmarks are plain models there
  ['extras.customlink', 'custom link', 'extras', 'custom-links', 'e'],
  ['extras.exporttemplate', 'export template', 'extras', 'export-templates', 'e'],
  ['extras.savedfilter', 'saved filter', 'extras', 'saved-filters', 'e'],
  ['extras.bookmark', 'bookmark', 'extras', 'bookmarks', ''],
  // NetBox 3.7's EventRule: change-logged with tags and custom fields, no event rules of its own; served beside the webhooks
  ['extras.eventrule', 'event rule', 'webhooks', 'event-rules', 'tc'],
  // NetBox 3.7's VPN app, served by ipam (decision 028); tunnel terminations are ChangeLoggedModels with tags and custom fields
  ['vpn.tunnelgroup', 'tunnel group', 'ipam', 'tunnel-groups', 'tce'],
  ['vpn.tunnel', 'tunnel', 'ipam', 'tunnels', 'tce'],
  ['vpn.tunneltermination', 'tunnel termination', 'ipam', 'tunnel-terminations', 'tc'],
  ['vpn.ikeproposal', 'IKE proposal', 'ipam', 'ike-proposals', 'tce'],
  ['vpn.ikepolicy', 'IKE policy', 'ipam', 'ike-policies', 'tce'],
  ['vpn.ipsecproposal', 'IPSec proposal', 'ipam', 'ipsec-proposals', 'tce'],
  ['vpn.ipsecpolicy', 'IPSec policy', 'ipam', 'ipsec-policies', 'tce'],
  ['vpn.ipsecprofile', 'IPSec profile', 'ipam', 'ipsec-profiles', 'tce'],
  ['vpn.l2vpn', 'L2VPN', 'ipam', 'l2vpns', 'tcke'],
  ['vpn.l2vpntermination', 'L2VPN termination', 'ipam', 'l2vpn-terminations', 'tce'],
  // NetBox 3.7's wireless app, served by dcim beside the interfaces its links join (decision 028)
  ['wireless.wirelesslangroup', 'wireless LAN group', 'dcim', 'wireless-lan-groups', 'tce'],
  ['wireless.wirelesslan', 'wireless LAN', 'dcim', 'wireless-lans', 'tce'],
  ['wireless.wirelesslink', 'wireless link', 'dcim', 'wireless-links', 'tce'],
  // NetBox 3.7's core app, served by extras (decision 028): a data source is a PrimaryModel; data files and jobs are plain models
  ['core.datasource', 'data source', 'extras', 'data-sources', 'tce'],
  ['core.datafile', 'data file', 'extras', 'data-files', ''],
  ['core.job', 'job', 'extras', 'jobs', ''],
];

/**
 * Models with tags, custom fields and event rules that are not NetBox
 * models (ChangeLoggedModels with those mixins): no journal. Every other
 * such model is a NetBoxModel, whose feature set includes JournalingMixin.
 */
const NOT_JOURNALED = new Set(['extras.webhook', 'extras.journalentry', 'tenancy.contactassignment', 'circuits.circuittermination']);

export const CONTENT_TYPES: ContentType[] = ROWS.map(([label, verbose_name, service, endpoint, flags], i) => {
  const [app_label, model] = label.split('.');
  return {
    id: i + 1,
    app_label,
    model,
    label,
    verbose_name,
    service,
    endpoint,
    features: {
      tags: flags.includes('t'),
      custom_fields: flags.includes('c'),
      contacts: flags.includes('k'),
      events: flags.includes('e'),
      journaling: flags.includes('t') && flags.includes('c') && flags.includes('e') && !NOT_JOURNALED.has(label),
    },
  };
});

const BY_LABEL = new Map(CONTENT_TYPES.map((c) => [c.label, c]));
const BY_ID = new Map(CONTENT_TYPES.map((c) => [c.id, c]));

export function contentType(label: string): ContentType | undefined {
  return BY_LABEL.get(label.toLowerCase());
}

export function contentTypeById(id: number): ContentType | undefined {
  return BY_ID.get(id);
}

/** `DCIM | site` */
export function contentTypeDisplay(ct: ContentType): string {
  return `${APP_VERBOSE[ct.app_label] ?? ct.app_label} | ${ct.verbose_name}`;
}

export function appVerboseName(app: string): string {
  return APP_VERBOSE[app] ?? app;
}
