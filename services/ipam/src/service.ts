import { createRestService, type RestService } from '@inventory/rest';
import type { BaseConfig } from '@inventory/core';
import { models } from './models';
import { migrations } from './migrations';

export function createService(config: BaseConfig): RestService {
  return createRestService({ name: 'ipam', area: 'ipam', config, models, migrations });
}
