import { defineModel, f, type ManyField } from '@inventory/rest';
import { contextData, syncedBeforeSave, syncedData, syncedDataFilters, templateCode } from '../data/synced';

/**
 * Config contexts (NetBox's extras.ConfigContext) and config templates
 * (extras.ConfigTemplate). A config context's criteria are m2m fields to
 * other services' models (regions, sites, ... kept here as projections);
 * devices and virtual machines render the contexts that match them
 * (libs/rest read/config-context.ts). Both may name a data file whose
 * content they copy (data/synced.ts): a context's data, a template's code.
 */

/** A criterion: written as ids, read as nested objects, filtered by `<x>_id` (and `<x>` by slug where NetBox has it). */
function criterion(to: string, through: string, idFilter: string, slugFilter?: string): ManyField {
  return f.m2m(to, through, { idFilter, filterKey: slugFilter ? 'slug' : null, ...(slugFilter ? { filterName: slugFilter } : {}) });
}

export const configContext = defineModel({
  label: 'extras.configcontext',
  endpoint: 'config-contexts',
  verboseName: 'config context',
  table: 'config_context',
  fields: {
    name: f.name(100, { unique: true }),
    weight: f.integer({ default: 1000, min: 0, max: 32767 }),
    description: f.description(),
    is_active: f.boolean(true),
    regions: criterion('dcim.region', 'config_context_regions', 'region_id', 'region'),
    site_groups: criterion('dcim.sitegroup', 'config_context_site_groups', 'site_group_id', 'site_group'),
    sites: criterion('dcim.site', 'config_context_sites', 'site_id', 'site'),
    locations: criterion('dcim.location', 'config_context_locations', 'location_id', 'location'),
    device_types: criterion('dcim.devicetype', 'config_context_device_types', 'device_type_id'),
    roles: criterion('dcim.devicerole', 'config_context_roles', 'role_id', 'role'),
    platforms: criterion('dcim.platform', 'config_context_platforms', 'platform_id', 'platform'),
    cluster_types: criterion('virtualization.clustertype', 'config_context_cluster_types', 'cluster_type_id', 'cluster_type'),
    cluster_groups: criterion('virtualization.clustergroup', 'config_context_cluster_groups', 'cluster_group_id', 'cluster_group'),
    clusters: criterion('virtualization.cluster', 'config_context_clusters', 'cluster_id'),
    tenant_groups: criterion('tenancy.tenantgroup', 'config_context_tenant_groups', 'tenant_group_id', 'tenant_group'),
    tenants: criterion('tenancy.tenant', 'config_context_tenants', 'tenant_id', 'tenant'),
    // a criterion, not the tagging feature: written and read as slugs (NetBox's SlugRelatedField)
    tags: f.m2m('extras.tag', 'config_context_tags', { write: 'slug', idFilter: 'tag_id', filterKey: 'slug', filterName: 'tag', removalIsChange: true }),
    ...syncedData(),
    data: f.json({ required: true, shape: 'object', filter: false }),
  },
  tags: false,
  customFields: false,
  brief: ['name'],
  display: (r) => String(r.name),
  ordering: ['weight', 'name'],
  search: ['name', 'description', 'data'],
  filters: (ctx) => syncedDataFilters(ctx),
  hooks: { beforeSave: syncedBeforeSave(contextData) },
});

export const configTemplate = defineModel({
  label: 'extras.configtemplate',
  endpoint: 'config-templates',
  verboseName: 'config template',
  table: 'config_template',
  fields: {
    name: f.name(100),
    description: f.description(),
    environment_params: f.json({ nullable: true, default: {}, filter: false }),
    template_code: f.text({ required: true }),
    ...syncedData(),
  },
  customFields: false,
  brief: ['name'],
  display: (r) => String(r.name),
  ordering: ['name'],
  search: ['name', 'description'],
  filters: (ctx) => syncedDataFilters(ctx),
  hooks: { beforeSave: syncedBeforeSave(templateCode) },
});
