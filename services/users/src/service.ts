import type { BaseConfig } from '@inventory/core';
import { createRestService, type RestService } from '@inventory/rest';
import { mountAuthInternal } from './auth';
import { authRateLimits, type AuthRateLimits } from './config';
import { migrations } from './migrations';
import { models } from './models';
import { mountDashboard } from './dashboard';
import { mountProvision, mountUserConfig } from './routes';
import { SignInThrottle } from './throttle';

/** `config`: a UsersConfig (main.ts); a plain BaseConfig gets the default rate limits. */
export function createService(config: BaseConfig & Partial<AuthRateLimits>): RestService {
  const limits = authRateLimits(config);
  return createRestService({
    name: 'users',
    area: 'users',
    config,
    models,
    migrations,
    extraEndpoints: ['config'],
    // before the model routes, so /tokens/provision/ is not taken for a token id
    routes: (app, ctx) => {
      const throttle = new SignInThrottle(ctx, limits);
      mountAuthInternal(app, ctx, throttle);
      mountProvision(app, ctx, throttle);
      mountUserConfig(app, ctx);
      mountDashboard(app, ctx);
    },
  });
}
