import amqp, { type ChannelModel } from 'amqplib';
import { safeUrl, waitFor, type Logger } from '@inventory/core';

/**
 * Connects to RabbitMQ with Nagle's algorithm off: amqplib leaves it on, and
 * then a small frame (a publish, an ack) can wait for the broker's delayed
 * ACK, some 40 ms, which every hop of an event would pay.
 */
export function connectBroker(url: string, options: { timeout?: number } = {}): Promise<ChannelModel> {
  return amqp.connect(url, { noDelay: true, ...options });
}

/** Resolves once the broker at `url` accepts a connection, retrying with backoff (at start: a broker that is not up yet is waited for). */
export function waitForBroker(url: string, log: Logger): Promise<void> {
  return waitFor('RabbitMQ', safeUrl(url), async () => {
    const conn = await connectBroker(url, { timeout: 5_000 });
    conn.on('error', () => undefined);
    await conn.close().catch(() => undefined);
  }, log);
}
