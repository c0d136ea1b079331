// jest's module mapper does not apply to global setup, and a fresh clone has no built packages yet
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startPostgres, startRabbitMQ } from '../../infra/src';
import { scratchDir } from './scratch';

/** Virtual hosts on the run's broker, one per stack or suite that asks `startBroker()` for its own. */
const SUITE_VHOSTS = Array.from({ length: 96 }, (_, i) => `suite-${i + 1}`);

/**
 * Starts PostgreSQL and RabbitMQ once for the whole run, side by side (each
 * honours DATABASE_URL / AMQP_URL; otherwise a throwaway local server, and
 * as root rabbitmq-server is apt-installed when missing). Workers inherit
 * the URLs through the environment (TEST_DATABASE_URL, TEST_AMQP_URL); each
 * test file then makes its own database, and every `bootStack` relays its
 * change events to the broker. Suites that watch events get a virtual host
 * of their own (TEST_AMQP_VHOSTS, claimed under TEST_AMQP_CLAIMS: see broker.ts).
 */
export default async function globalSetup(): Promise<void> {
  const g = globalThis as Record<string, unknown>;
  // the servers' data in memory when there is room (scratch.ts): each test file's database is cloned in a tenth of the time
  const dataDir = scratchDir();
  const [pg, rabbit] = await Promise.allSettled([
    startPostgres({ dataDir, log: () => undefined }),
    startRabbitMQ({ dataDir, vhosts: SUITE_VHOSTS, log: () => undefined }),
  ]);
  if (pg.status === 'rejected' || rabbit.status === 'rejected') {
    // Do not leave the one that did start running.
    if (pg.status === 'fulfilled') await pg.value.stop().catch(() => undefined);
    if (rabbit.status === 'fulfilled') await rabbit.value.stop().catch(() => undefined);
    throw pg.status === 'rejected' ? pg.reason : (rabbit as PromiseRejectedResult).reason;
  }
  process.env.TEST_DATABASE_URL = pg.value.url;
  // jest runs the TypeScript sources: threads they start (the template workers) load them through ts-register
  process.env.TS_REGISTER = path.join(__dirname, 'ts-register.js');
  // names this run's template databases (database.ts), which global teardown drops from a server that outlives it
  process.env.TEST_RUN_ID = randomBytes(4).toString('hex');
  process.env.TEST_AMQP_URL = rabbit.value.url;
  g.__inventoryPg = pg.value;
  g.__inventoryRabbit = rabbit.value;
  if (rabbit.value.vhosts?.length) {
    const claims = fs.mkdtempSync(path.join(os.tmpdir(), 'inventory-vhost-claims-'));
    process.env.TEST_AMQP_VHOSTS = rabbit.value.vhosts.join(',');
    process.env.TEST_AMQP_CLAIMS = claims;
    const stop = rabbit.value.stop.bind(rabbit.value);
    // global teardown stops the broker: the claims go with it
    rabbit.value.stop = async () => {
      await stop();
      fs.rmSync(claims, { recursive: true, force: true });
    };
  }
}
