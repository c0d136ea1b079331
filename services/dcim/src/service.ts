import { createRestService, mountRoute, renderConfigRoute, type RestService } from '@inventory/rest';
import type { BaseConfig } from '@inventory/core';
import { device, models } from './models';
import { migrations } from './migrations';
import { mountElevation } from './routes/elevation';
import { cablingRoutes } from './cabling/routes';
import { mountCircuitPaths } from './cabling/circuit-paths';

export function createService(config: BaseConfig): RestService {
  return createRestService({
    name: 'dcim',
    area: 'dcim',
    // NetBox 3.7's wireless app, under /api/wireless/ (decision 028)
    areas: ['wireless'],
    config,
    models,
    migrations,
    // the rack elevation; trace, paths and connected-device are dcim's own reads over the stored cable paths
    routes: (app, ctx) => {
      mountElevation(app, ctx);
      cablingRoutes(app, ctx);
      mountCircuitPaths(app, ctx);
      // the device's own config template, else its role's, else its platform's (§3.4)
      mountRoute(app, renderConfigRoute(ctx, device, { templateFrom: ['config_template', 'role', 'platform'] }));
    },
  });
}
