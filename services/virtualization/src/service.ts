import { createRestService, mountRoute, renderConfigRoute, type RestService } from '@inventory/rest';
import type { BaseConfig } from '@inventory/core';
import { models, virtualMachine } from './models';
import { migrations } from './migrations';

export function createService(config: BaseConfig): RestService {
  return createRestService({
    name: 'virtualization',
    area: 'virtualization',
    config,
    models,
    migrations,
    // the machine's own config template, else its role's, else its platform's
    routes: (app, ctx) => {
      mountRoute(app, renderConfigRoute(ctx, virtualMachine, { templateFrom: ['config_template', 'role', 'platform'] }));
    },
  });
}
