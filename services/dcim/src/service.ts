import { createRestService, type RestService } from '@inventory/rest';
import type { BaseConfig } from '@inventory/core';
import { models } from './models';
import { migrations } from './migrations';
import { mountElevation } from './routes/elevation';

export function createService(config: BaseConfig): RestService {
  return createRestService({
    name: 'dcim',
    area: 'dcim',
    config,
    models,
    migrations,
    routes: (app, ctx) => {
      mountElevation(app, ctx);
    },
  });
}
