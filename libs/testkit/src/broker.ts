import * as fs from 'node:fs';
import * as path from 'node:path';
import { startRabbitMQ, type RunningRabbit } from '@inventory/infra';
import { scratchDir } from './scratch';

let shared: RunningRabbit | null = null;

/**
 * A virtual host of the run's broker (global setup) that no other suite has
 * had: claimed by creating its file exclusively, so workers never share one.
 */
function claimVhost(): string | undefined {
  const url = process.env.TEST_AMQP_URL;
  const claims = process.env.TEST_AMQP_CLAIMS;
  if (!url || !claims) return undefined;
  for (const vhost of (process.env.TEST_AMQP_VHOSTS ?? '').split(',').filter(Boolean)) {
    try {
      fs.closeSync(fs.openSync(path.join(claims, vhost), 'wx'));
      return `${url}/${encodeURIComponent(vhost)}`;
    } catch {
      /* taken (or no claims dir): try the next */
    }
  }
  return undefined;
}

/**
 * A RabbitMQ to itself, for a stack (`bootStack` takes one unless given an
 * AMQP_URL) or a suite that watches events: a fresh virtual host on the
 * run's broker (so no other suite's events or queues reach it), or when
 * there is none to claim (a Docker or external broker, all taken) a broker
 * of its own.
 */
export async function startBroker(): Promise<{ url: string; stop(): Promise<void> }> {
  const vhostUrl = claimVhost();
  if (vhostUrl) return { url: vhostUrl, stop: async () => undefined };
  shared ??= await startRabbitMQ({ dataDir: scratchDir(), log: () => undefined });
  const rabbit = shared;
  return {
    url: rabbit.url,
    async stop() {
      await rabbit.stop();
      shared = null;
    },
  };
}
