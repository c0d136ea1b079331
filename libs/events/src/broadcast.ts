import type { ChangeEvent } from './envelope';
import { EVENTS_EXCHANGE, eventsOf } from './envelope';
import { BrokerSession } from './session';
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

/**
 * Every event matching `bindings`, in every process that subscribes: each
 * subscription has its own exclusive, auto-delete, non-durable queue (so
 * every replica sees every event; the queue goes with the connection).
 * A lost connection is re-established with backoff; `onConnect` runs after
 * every (re)connection, since events may have been missed in between.
 */
export function subscribeChanges(o: ChangeSubscriptionOptions): ChangeSubscription {
  const session = new BrokerSession({
    amqpUrl: o.amqpUrl,
    log: o.log,
    name: 'change subscription',
    async serve(link) {
      const ch = await link.connect();
      await declareEventsExchange(ch);
      const { queue } = await ch.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
      for (const pattern of o.bindings) await ch.bindQueue(queue, EVENTS_EXCHANGE, pattern);
      await ch.consume(
        queue,
        (msg) => {
          if (!msg) return link.fail(new Error('subscription cancelled by the broker'));
          // one event, or a pack of them (each in its order)
          for (const event of eventsOf(msg.content)?.events ?? []) {
            Promise.resolve()
              .then(() => o.onEvent(event))
              .catch((err: Error) => o.log.warn({ err: err.message, model: event.model }, 'change subscription: handler failed'));
          }
        },
        { noAck: true },
      );
      o.onConnect?.();
      link.ready();
      await link.ended;
    },
  });
  session.start();
  return { ready: session.ready, stop: () => session.stop() };
}
