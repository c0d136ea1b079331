import { createRestService, type RestService } from '@inventory/rest';
import type { BaseConfig } from '@inventory/core';
import { models } from './models';
import { migrations } from './migrations';
import { cablingRoutes } from './cabling/routes';

export function createService(config: BaseConfig): RestService {
  // trace, paths and connected-device are dcim's own reads over the stored cable paths
  return createRestService({ name: 'dcim', area: 'dcim', config, models, migrations, routes: cablingRoutes });
}
