import { createRestService, type RestService } from '@inventory/rest';
import type { BaseConfig } from '@inventory/core';
import { models } from './models';
import { migrations } from './migrations';
import { mountElevation } from './routes/elevation';
import { cablingRoutes } from './cabling/routes';

export function createService(config: BaseConfig): RestService {
  return createRestService({
    name: 'dcim',
    area: 'dcim',
    config,
    models,
    migrations,
    // the rack elevation; trace, paths and connected-device are dcim's own reads over the stored cable paths
    routes: (app, ctx) => {
      mountElevation(app, ctx);
      cablingRoutes(app, ctx);
    },
  });
}
