import { type Channel } from 'amqplib';
import { BrokerSession, type BrokerLink } from './session';

type Log = { info(o: object, m?: string): void; warn(o: object, m?: string): void };

/**
 * Read-your-writes across services (docs/decisions/025-consistency.md): a
 * service that applied other services' events to state it serves (a
 * projection, the change log) says so on `inventory.consistency`, routed to
 * the service that wrote them; the writer answers its client once every
 * service that reads the events has said so, or a bound has passed.
 *
 * Confirmations are transient (not persisted, no publisher confirms): a lost
 * one costs the writer its bound, never a wrong answer, and events themselves
 * travel on `inventory.events` with all their guarantees.
 */
export const CONSISTENCY_EXCHANGE = 'inventory.consistency';

/** What a confirmation says: the reader `by` (a consumer's queue) has applied these events (ids) of the service it is routed to. */
export interface Confirmation {
  by: string;
  ids: string[];
}

/** One event an owner waits on, and the readers that must confirm it. */
export interface Expectation {
  id: string;
  services: Iterable<string>;
}

/** How long a confirmation that arrives before its writer waits for it is kept (the writer registers after its commit). */
const EARLY_MS = 10_000;
const EARLY_MAX = 200_000;
/** Confirmations are only worth anything while writers wait (a few seconds): reconnect sooner than the event sessions. */
const BACKOFF = { first: 100, max: 5_000 };

interface Waiter {
  /** Per event id: the services still to confirm it. */
  open: Map<string, Set<string>>;
  done: () => void;
}

export interface ConsistencyOptions {
  amqpUrl: string;
  /** This service: confirmations routed here are for its events. */
  service: string;
  log: Log;
}

/**
 * One service instance's side of the protocol: a broker session (reconnected
 * with backoff) with an exclusive queue bound to the service's name, on
 * which every replica hears every confirmation of the service's events, and
 * a channel to publish its own confirmations to other services.
 */
export class Consistency {
  private readonly session: BrokerSession;
  private ch: Channel | null = null;
  /** Waiters by event id (a waiter is listed under each of its open events). */
  private readonly waiting = new Map<string, Set<Waiter>>();
  /** Confirmations that came before anyone waited for them: event id → services, with when they came. */
  private readonly early = new Map<string, { by: Set<string>; at: number }>();
  /** Resolves once the first session is consuming (or the hub stopped). */
  readonly ready: Promise<void>;

  constructor(private readonly o: ConsistencyOptions) {
    this.session = new BrokerSession({ amqpUrl: o.amqpUrl, log: o.log, name: 'consistency', backoff: BACKOFF, serve: (link) => this.serve(link) });
    this.ready = this.session.ready;
  }

  /** Whether confirmations can flow now (a writer with none coming does not wait for them). */
  get connected(): boolean {
    return this.ch !== null;
  }

  start(): void {
    this.session.start();
  }

  stop(): Promise<void> {
    return this.session.stop();
  }

  /**
   * Resolves once every expected service confirmed each event, or after
   * `ms`: with the services that had not confirmed by then (none: all did).
   */
  wait(expected: Expectation[], ms: number): Promise<string[]> {
    const open = new Map<string, Set<string>>();
    for (const e of expected) {
      const services = new Set(e.services);
      for (const by of this.early.get(e.id)?.by ?? []) services.delete(by);
      if (services.size) open.set(e.id, services);
    }
    if (!open.size) return Promise.resolve([]);
    return new Promise<string[]>((resolve) => {
      const waiter: Waiter = { open, done: () => undefined };
      const finish = () => {
        clearTimeout(timer);
        for (const id of open.keys()) {
          const set = this.waiting.get(id);
          set?.delete(waiter);
          if (set && !set.size) this.waiting.delete(id);
        }
        const pending = new Set<string>();
        for (const services of open.values()) for (const s of services) pending.add(s);
        resolve([...pending].sort());
      };
      const timer = setTimeout(finish, ms);
      waiter.done = finish;
      for (const id of open.keys()) {
        const set = this.waiting.get(id) ?? new Set<Waiter>();
        set.add(waiter);
        this.waiting.set(id, set);
      }
    });
  }

  /** Tells each owner that `reader` applied its events (`owner` of each: the service that wrote it). Best effort. */
  confirm(reader: string, events: { id: string; owner: string }[]): void {
    const ch = this.ch;
    if (!ch || !events.length) return;
    const byOwner = new Map<string, string[]>();
    for (const e of events) (byOwner.get(e.owner) ?? byOwner.set(e.owner, []).get(e.owner)!).push(e.id);
    try {
      for (const [owner, ids] of byOwner) {
        const body: Confirmation = { by: reader, ids };
        ch.publish(CONSISTENCY_EXCHANGE, owner, Buffer.from(JSON.stringify(body)), { contentType: 'application/json' });
      }
    } catch (err) {
      this.session.fail(err as Error);
    }
  }

  /** A confirmation routed to this service: its waiters lose that service for those events. */
  private received(c: Confirmation): void {
    const now = Date.now();
    for (const id of c.ids) {
      const waiters = this.waiting.get(id);
      if (!waiters) {
        const seen = this.early.get(id) ?? { by: new Set<string>(), at: now };
        seen.by.add(c.by);
        this.early.set(id, seen);
        continue;
      }
      for (const w of [...waiters]) {
        const services = w.open.get(id);
        services?.delete(c.by);
        if (services && !services.size) w.open.delete(id);
        if (!w.open.size) w.done();
      }
    }
    this.forgetEarly(now);
  }

  /** Early confirmations older than EARLY_MS go (a Map iterates in insertion order: the oldest first). */
  private forgetEarly(now: number): void {
    for (const [id, seen] of this.early) {
      if (now - seen.at < EARLY_MS && this.early.size <= EARLY_MAX) break;
      this.early.delete(id);
    }
  }

  /** Consumes the confirmations routed to this service, and lends its channel to `confirm`, until the link ends. */
  private async serve(link: BrokerLink): Promise<void> {
    const ch = await link.connect();
    await ch.assertExchange(CONSISTENCY_EXCHANGE, 'direct', { durable: true });
    const { queue } = await ch.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
    await ch.bindQueue(queue, CONSISTENCY_EXCHANGE, this.o.service);
    await ch.consume(
      queue,
      (msg) => {
        if (!msg) return link.fail(new Error('cancelled by the broker'));
        try {
          const c = JSON.parse(msg.content.toString('utf8')) as Confirmation;
          if (c && typeof c.by === 'string' && Array.isArray(c.ids)) this.received({ by: c.by, ids: c.ids.map(String) });
        } catch {
          // not a confirmation: nothing waits for it
        }
      },
      { noAck: true },
    );
    this.ch = ch;
    try {
      link.ready();
      await link.ended;
    } finally {
      this.ch = null;
    }
  }
}
