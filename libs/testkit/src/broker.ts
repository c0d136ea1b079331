import { startRabbitMQ, type RunningRabbit } from '@inventory/infra';

let shared: RunningRabbit | null = null;

/** A RabbitMQ for suites that need one: the run's (TEST_RABBITMQ=1) or one for this worker. */
export async function startBroker(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.TEST_AMQP_URL) return { url: process.env.TEST_AMQP_URL, stop: async () => undefined };
  shared ??= await startRabbitMQ({ log: () => undefined });
  const rabbit = shared;
  return {
    url: rabbit.url,
    async stop() {
      await rabbit.stop();
      shared = null;
    },
  };
}
