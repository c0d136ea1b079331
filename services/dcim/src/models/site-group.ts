import type { ModelDef } from '@inventory/rest';
import { nestedGroup } from './nested-groups';

export const siteGroup: ModelDef = nestedGroup({ label: 'dcim.sitegroup', endpoint: 'site-groups', table: 'site_group', verboseName: 'site group', siteField: 'group' });
