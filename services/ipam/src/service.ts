import { createRestService, type RestService } from '@inventory/rest';
import type { BaseConfig } from '@inventory/core';
import type { IpamConfig } from './config';
import { models } from './models';
import { addressingSettings } from './models/settings';
import { migrations } from './migrations';
import { mountPools } from './routes/pools';

export function createService(config: BaseConfig & Partial<Pick<IpamConfig, 'ENFORCE_GLOBAL_UNIQUE'>>): RestService {
  // read once, at start (config.ts); a caller passing only the base settings gets NetBox's default
  addressingSettings.enforceGlobalUnique = config.ENFORCE_GLOBAL_UNIQUE ?? true;
  return createRestService({
    name: 'ipam',
    area: 'ipam',
    config,
    models,
    migrations,
    // available-vlans and available-asns (§4.4, §4.5): allocation from a VLAN group's range and an ASN range
    routes: (app, ctx) => mountPools(app, ctx),
  });
}
