import { createRestService, type RestService } from '@inventory/rest';
import type { BaseConfig } from '@inventory/core';
import { mountAdminRoutes } from './admin/routes';
import { Dispatcher } from './delivery/dispatcher';
import { mountRetryRoutes } from './delivery/retry-routes';
import { deliveryRetention } from './delivery/retention';
import { dispatchSettings, retrySchedule, type DispatchSettings } from './config';
import { models } from './models';
import { migrations } from './migrations';

/**
 * The webhooks service: the webhook records and the delivery log, served
 * under /api/extras/ (the gateway routes `webhooks` and
 * `webhook-deliveries` here and merges them into the extras listing), and,
 * with a broker, the dispatcher that sends the deliveries.
 */
export function createService(config: BaseConfig & Partial<DispatchSettings>): RestService {
  const settings = dispatchSettings(config);
  const scheduleMs = retrySchedule(settings.WEBHOOK_RETRY_SCHEDULE);
  let dispatcher: Dispatcher | null = null;
  const service = createRestService({
    name: 'webhooks',
    area: 'extras',
    config,
    models,
    migrations,
    // before the model routes, so `retry` is not taken for a delivery id
    routes: (app, ctx) => {
      mountRetryRoutes(app, ctx, () => dispatcher);
      mountAdminRoutes(app, ctx, { amqpUrl: config.AMQP_URL, scheduleMs, dispatcher: () => dispatcher });
    },
  });
  const retention = deliveryRetention(service.ctx, settings.WEBHOOK_DELIVERY_RETENTION);
  const running = config.AMQP_URL
    ? new Dispatcher({
        ctx: service.ctx,
        amqpUrl: config.AMQP_URL,
        databaseUrl: config.DATABASE_URL,
        scheduleMs,
        concurrency: settings.WEBHOOK_CONCURRENCY,
        timeoutMs: settings.WEBHOOK_TIMEOUT * 1000,
      })
    : null;
  const { start, stop } = service;
  service.start = async (port) => {
    const server = await start(port);
    retention.start();
    await running?.start();
    dispatcher = running;
    return server;
  };
  service.stop = async () => {
    dispatcher = null;
    retention.stop();
    await running?.stop();
    await stop();
  };
  return service;
}
