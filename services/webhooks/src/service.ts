import { createRestService, type RestService } from '@inventory/rest';
import type { BaseConfig } from '@inventory/core';
import { models } from './models';
import { migrations } from './migrations';

/**
 * The webhooks service: the webhook records and the delivery log, served
 * under /api/extras/ (the gateway routes `webhooks` and
 * `webhook-deliveries` here and merges them into the extras listing).
 */
export function createService(config: BaseConfig): RestService {
  return createRestService({ name: 'webhooks', area: 'extras', config, models, migrations });
}
