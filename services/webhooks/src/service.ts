import { createRestService, type RestService } from '@inventory/rest';
import type { BaseConfig } from '@inventory/core';
import { Dispatcher } from './delivery/dispatcher';
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
  const service = createRestService({ name: 'webhooks', area: 'extras', config, models, migrations });
  if (!config.AMQP_URL) return service;
  const dispatcher = new Dispatcher({
    ctx: service.ctx,
    amqpUrl: config.AMQP_URL,
    databaseUrl: config.DATABASE_URL,
    scheduleMs: retrySchedule(config.WEBHOOK_RETRY_SCHEDULE ?? process.env.WEBHOOK_RETRY_SCHEDULE),
  });
  const { start, stop } = service;
  service.start = async (port) => {
    const server = await start(port);
    await dispatcher.start();
    return server;
  };
  service.stop = async () => {
    await dispatcher.stop();
    await stop();
  };
  return service;
}
