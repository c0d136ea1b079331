import { createRestService, type RestService } from '@inventory/rest';
import type { BaseConfig } from '@inventory/core';
import { mountAdminRoutes } from './admin/routes';
import { Dispatcher } from './delivery/dispatcher';
import { mountRetryRoutes } from './delivery/retry-routes';
import { DEFAULT_RETRY_SCHEDULE } from './delivery/topology';
import { models } from './models';
import { migrations } from './migrations';

/** Seconds before each retry, from WEBHOOK_RETRY_SCHEDULE (`10,60,300`); the default otherwise. */
export function retrySchedule(value: string | undefined): number[] {
  const steps = (value ?? '').split(',').map((s) => Number(s.trim())).filter((n) => Number.isFinite(n) && n > 0);
  return (steps.length ? steps : DEFAULT_RETRY_SCHEDULE).map((s) => Math.round(s * 1000));
}

/**
 * The webhooks service: the webhook records and the delivery log, served
 * under /api/extras/ (the gateway routes `webhooks` and
 * `webhook-deliveries` here and merges them into the extras listing), and,
 * with a broker, the dispatcher that sends the deliveries.
 */
export function createService(config: BaseConfig & { WEBHOOK_RETRY_SCHEDULE?: string }): RestService {
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
      mountAdminRoutes(app, ctx, { amqpUrl: config.AMQP_URL, scheduleMs: retrySchedule(config.WEBHOOK_RETRY_SCHEDULE ?? process.env.WEBHOOK_RETRY_SCHEDULE), dispatcher: () => dispatcher });
    },
  });
  if (!config.AMQP_URL) return service;
  const running = new Dispatcher({
    ctx: service.ctx,
    amqpUrl: config.AMQP_URL,
    databaseUrl: config.DATABASE_URL,
    scheduleMs: retrySchedule(config.WEBHOOK_RETRY_SCHEDULE ?? process.env.WEBHOOK_RETRY_SCHEDULE),
  });
  const { start, stop } = service;
  service.start = async (port) => {
    const server = await start(port);
    await running.start();
    dispatcher = running;
    return server;
  };
  service.stop = async () => {
    dispatcher = null;
    await running.stop();
    await stop();
  };
  return service;
}
