import { createRestService, type RestService } from '@inventory/rest';
import type { BaseConfig } from '@inventory/core';
import { models } from './models';
import { migrations } from './migrations';
import { mountPools } from './routes/pools';

export function createService(config: BaseConfig): RestService {
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
