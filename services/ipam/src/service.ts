import { createRestService, type RestService } from '@inventory/rest';
import type { BaseConfig } from '@inventory/core';
import type { IpamConfig } from './config';
import { models } from './models';
import type { AddressingSettings } from './models/settings';
import { migrations } from './migrations';
import { mountPools } from './routes/pools';
import { mountNetworks } from './routes/networks';

export function createService(config: BaseConfig & Partial<Pick<IpamConfig, 'ENFORCE_GLOBAL_UNIQUE'>>): RestService {
  // read once, at start (config.ts), for this instance alone; a caller passing only the base settings gets NetBox's default
  const own: AddressingSettings = { enforceGlobalUnique: config.ENFORCE_GLOBAL_UNIQUE ?? true };
  return createRestService({
    name: 'ipam',
    area: 'ipam',
    // NetBox 3.7's vpn app (decision 028): /api/vpn/
    areas: ['vpn'],
    config,
    own,
    models,
    migrations,
    // the available-* endpoints (§4): prefixes and IP addresses from a prefix or an IP range (§4.1–4.3),
    // VLANs from a VLAN group's range and ASNs from an ASN range (§4.4, §4.5)
    routes: (app, ctx) => {
      mountNetworks(app, ctx);
      mountPools(app, ctx);
    },
  });
}
