import { createRestService, type RestService } from '@inventory/rest';
import type { BaseConfig } from '@inventory/core';
import { mountAdminRoutes } from './admin/routes';
import { Dispatcher } from './delivery/dispatcher';
import { mountRetryRoutes } from './delivery/retry-routes';
import { deliveryRetention } from './delivery/retention';
import { registerQueueGauges } from './delivery/metrics';
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
  return createRestService({
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
    workers: (ctx) => {
      registerQueueGauges(ctx.metrics, config.AMQP_URL, scheduleMs);
      const retention = deliveryRetention(ctx, settings.WEBHOOK_DELIVERY_RETENTION);
      const running = config.AMQP_URL
        ? new Dispatcher({
            ctx,
            amqpUrl: config.AMQP_URL,
            databaseUrl: config.DATABASE_URL,
            scheduleMs,
            concurrency: settings.WEBHOOK_CONCURRENCY,
            timeoutMs: settings.WEBHOOK_TIMEOUT * 1000,
          })
        : null;
      return [
        {
          async start() {
            retention.start();
            await running?.start();
            dispatcher = running;
          },
          async stop() {
            dispatcher = null;
            await retention.stop();
            await running?.stop();
          },
        },
      ];
    },
  });
}
