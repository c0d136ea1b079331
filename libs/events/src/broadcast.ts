import { type ChannelModel, type ConsumeMessage } from 'amqplib';
import { connectBroker } from './connection';
import type { ChangeEvent } from './envelope';
import { EVENTS_EXCHANGE } from './envelope';
import { declareEventsExchange } from './topology';

type Log = { info(o: object, m?: string): void; warn(o: object, m?: string): void };

export interface ChangeSubscriptionOptions {
  amqpUrl: string;
  /** Routing-key patterns on `inventory.events`, e.g. `extras.tag.#`. */
  bindings: string[];
  /** Called for every event (errors are logged, never retried: this is a notification, not work). */
  onEvent: (event: ChangeEvent) => void | Promise<void>;
  /** Called after each (re)connection: events may have been missed while disconnected (e.g. drop every cache). */
  onConnect?: () => void;
  log: Log;
}

export interface ChangeSubscription {
  /** Resolves once the queue is bound the first time (or the subscription stopped). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

const MAX_BACKOFF_MS = 10_000;

function parse(msg: ConsumeMessage): ChangeEvent | null {
  try {
    const event = JSON.parse(msg.content.toString('utf8')) as ChangeEvent;
    if (!event || typeof event !== 'object' || typeof event.model !== 'string' || typeof event.event !== 'string') return null;
    return event;
  } catch {
    return null;
  }
}

/**
 * Every event matching `bindings`, in every process that subscribes: each
 * subscription has its own exclusive, auto-delete, non-durable queue (so
 * every replica sees every event; the queue goes with the connection).
 * A lost connection is re-established with backoff; `onConnect` runs after
 * every (re)connection, since events may have been missed in between.
 */
export function subscribeChanges(o: ChangeSubscriptionOptions): ChangeSubscription {
  let stopping = false;
  let conn: ChannelModel | null = null;
  let broken: ((err: Error) => void) | null = null;
  let wake: (() => void) | null = null;
  let markReady!: () => void;
  const ready = new Promise<void>((r) => (markReady = r));

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });

  async function serve(): Promise<void> {
    const failure = new Promise<Error>((resolve) => (broken = resolve));
    try {
      conn = await connectBroker(o.amqpUrl);
      conn.on('error', (err: Error) => broken?.(err));
      conn.on('close', () => broken?.(new Error('broker connection closed')));
      const ch = await conn.createChannel();
      ch.on('error', (err: Error) => broken?.(err));
      ch.on('close', () => broken?.(new Error('broker channel closed')));
      await declareEventsExchange(ch);
      const { queue } = await ch.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
      for (const pattern of o.bindings) await ch.bindQueue(queue, EVENTS_EXCHANGE, pattern);
      await ch.consume(
        queue,
        (msg) => {
          if (!msg) return broken?.(new Error('subscription cancelled by the broker'));
          const event = parse(msg);
          if (!event) return;
          Promise.resolve()
            .then(() => o.onEvent(event))
            .catch((err: Error) => o.log.warn({ err: err.message, model: event.model }, 'change subscription: handler failed'));
        },
        { noAck: true },
      );
      o.onConnect?.();
      markReady();
      if (stopping) broken?.(new Error('stopping'));
      const err = await failure;
      if (!stopping) throw err;
    } finally {
      broken = null;
      const c = conn;
      conn = null;
      await c?.close().catch(() => undefined);
    }
  }

  const loop = (async () => {
    let backoff = 200;
    while (!stopping) {
      const started = Date.now();
      try {
        await serve();
      } catch (err) {
        if (stopping) break;
        if (Date.now() - started > 30_000) backoff = 200;
        o.log.warn({ err: (err as Error).message }, 'change subscription: retrying after an error');
        await sleep(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  })();

  return {
    ready,
    async stop() {
      stopping = true;
      broken?.(new Error('stopping'));
      wake?.();
      await loop;
      markReady();
    },
  };
}
