// jest's module mapper does not apply to global setup, and a fresh clone has no built packages yet
import { startPostgres, startRabbitMQ } from '../../infra/src';

/**
 * Starts PostgreSQL once for the whole run (and RabbitMQ with TEST_RABBITMQ=1;
 * otherwise a suite that needs a broker starts one with `startBroker()`).
 * Workers inherit the URLs through the environment; each test file then
 * makes its own database.
 */
export default async function globalSetup(): Promise<void> {
  const pg = await startPostgres({ log: () => undefined });
  process.env.TEST_DATABASE_URL = pg.url;
  (globalThis as Record<string, unknown>).__inventoryPg = pg;
  if (process.env.TEST_RABBITMQ === '1') {
    const rabbit = await startRabbitMQ({ log: () => undefined });
    process.env.TEST_AMQP_URL = rabbit.url;
    (globalThis as Record<string, unknown>).__inventoryRabbit = rabbit;
  }
}
