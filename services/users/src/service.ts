import type { BaseConfig } from '@inventory/core';
import { createRestService, type RestService } from '@inventory/rest';
import { announceAuthChange, mountAuthInternal } from './auth';
import { migrations } from './migrations';
import { models } from './models';
import { mountProvision, mountUserConfig } from './routes';

export function createService(config: BaseConfig): RestService {
  // any change here may revoke what a cached token verification granted
  for (const m of models) m.hooks.afterCommit = (ctx) => announceAuthChange(ctx);
  return createRestService({
    name: 'users',
    area: 'users',
    config,
    models,
    migrations,
    extraEndpoints: ['config'],
    // before the model routes, so /tokens/provision/ is not taken for a token id
    routes: (app, ctx) => {
      mountAuthInternal(app, ctx);
      mountProvision(app, ctx);
      mountUserConfig(app, ctx);
    },
  });
}
