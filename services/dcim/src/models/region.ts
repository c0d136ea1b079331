import type { ModelDef } from '@inventory/rest';
import { nestedGroup } from './nested-groups';

export const region: ModelDef = nestedGroup({ label: 'dcim.region', endpoint: 'regions', verboseName: 'region', siteField: 'region' });
