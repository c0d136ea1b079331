import { type Channel, type ChannelModel } from 'amqplib';
import { connectBroker } from './connection';

type Log = { info(o: object, m?: string): void; warn(o: object, m?: string): void };

/** One connection of a session, as its `serve` sees it. */
export interface BrokerLink<C extends Channel = Channel> {
  /** Connects to the broker (once; later calls give the same channel). The connection and channel are watched: a failure fails this link. */
  connect(): Promise<C>;
  /** Settles once this link is done with: resolves at `stop()`, rejects with its failure (never unhandled). */
  readonly ended: Promise<void>;
  /** Its failure, once it failed. */
  readonly error: Error | null;
  /** Neither failed nor stopped: work taken on it may still be settled on it. */
  readonly live: boolean;
  /** Declares the link broken (a lost database, a consumer cancelled by the broker): the session reconnects. */
  fail(err: Error): void;
  /** Set up and serving: resolves the session's `ready`. */
  ready(): void;
}

export interface BrokerSessionOptions<C extends Channel = Channel> {
  amqpUrl: string;
  log: Log;
  /** Who reconnects, in the log: `<name>: reconnecting after an error`. */
  name: string;
  /** More fields for that log line (a queue, a schema). */
  logFields?: object;
  /** Opens the link's channel (e.g. a confirm channel; a plain one by default). */
  channel?: (conn: ChannelModel) => Promise<C>;
  /** The pause after a first failure, doubled after each next one up to `max` (ms; default 200 and 10,000). */
  backoff?: { first: number; max: number };
  /**
   * Works one link: connects when it needs the broker, then runs until the
   * link ends (it usually awaits `link.ended`). Throwing, or the link
   * failing, means: reconnect after the backoff. Returning ends the session.
   */
  serve: (link: BrokerLink<C>) => Promise<void>;
  /** Every failure of a link, the one at `stop()` too (which is not retried). */
  onError?: (err: Error) => void;
}

/** A link that lasted this long was healthy: the next failure starts the backoff afresh. */
const HEALTHY_MS = 30_000;
/** A broker that does not answer a close (a half-dead connection) has its socket dropped after this. */
const CLOSE_MS = 2_000;

/**
 * A broker session that outlives its connections: `serve` runs on a new
 * link each time, and a failed link (the broker restarted, a channel error,
 * whatever `serve` throws or calls `fail` for) is reconnected with growing
 * backoff. `stop()` stops retrying, wakes a pause, ends the link under way
 * (its `ended` resolves) and waits for `serve` to return; the connection is
 * then closed, so unacked messages go back to their queues.
 */
export class BrokerSession<C extends Channel = Channel> {
  private stopping = false;
  private loop: Promise<void> | null = null;
  private link: Link<C> | null = null;
  private wake: (() => void) | null = null;
  private markReady: () => void = () => undefined;
  /** Resolves once a link is ready the first time (or the session stopped). */
  readonly ready = new Promise<void>((r) => (this.markReady = r));

  constructor(private readonly o: BrokerSessionOptions<C>) {}

  start(): void {
    this.stopping = false;
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.link?.end();
    this.wake?.();
    await this.loop;
    this.loop = null;
    this.markReady();
  }

  /** Fails the link under way, if any (for work done outside `serve`, such as a publish). */
  fail(err: Error): void {
    this.link?.fail(err);
  }

  private async run(): Promise<void> {
    const { first, max } = this.o.backoff ?? { first: 200, max: 10_000 };
    let backoff = first;
    while (!this.stopping) {
      const started = Date.now();
      try {
        await this.serveOnce();
        break; // serve returned: done
      } catch (err) {
        this.o.onError?.(err as Error);
        if (this.stopping) break;
        if (Date.now() - started > HEALTHY_MS) backoff = first;
        this.o.log.warn({ err: (err as Error).message, ...this.o.logFields }, `${this.o.name}: reconnecting after an error`);
        await this.pause(backoff);
        backoff = Math.min(backoff * 2, max);
      }
    }
    this.markReady();
  }

  private async serveOnce(): Promise<void> {
    const link = new Link<C>(this.o.amqpUrl, this.o.channel ?? ((conn) => conn.createChannel() as Promise<C>), () => this.markReady());
    this.link = link;
    try {
      await this.o.serve(link);
      // a serve that returns over a failed link still failed (unless stopping)
      if (link.error && !this.stopping) throw link.error;
    } finally {
      this.link = null;
      await link.close();
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

class Link<C extends Channel> implements BrokerLink<C> {
  readonly ended: Promise<void>;
  error: Error | null = null;
  private over = false;
  private conn: ChannelModel | null = null;
  private opening: Promise<C> | null = null;
  private settle!: { resolve: () => void; reject: (err: Error) => void };

  constructor(
    private readonly url: string,
    private readonly open: (conn: ChannelModel) => Promise<C>,
    readonly ready: () => void,
  ) {
    this.ended = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));
    this.ended.catch(() => undefined);
  }

  get live(): boolean {
    return !this.over;
  }

  connect(): Promise<C> {
    this.opening ??= (async () => {
      const conn = await connectBroker(this.url);
      this.conn = conn;
      conn.on('error', (err: Error) => this.fail(err));
      conn.on('close', () => this.fail(new Error('broker connection closed')));
      const ch = await this.open(conn);
      ch.on('error', (err: Error) => this.fail(err));
      ch.on('close', () => this.fail(new Error('broker channel closed')));
      return ch;
    })();
    return this.opening;
  }

  fail(err: Error): void {
    if (this.over) return;
    this.over = true;
    this.error = err;
    this.settle.reject(err);
  }

  /** Stopping: `ended` resolves. */
  end(): void {
    if (this.over) return;
    this.over = true;
    this.settle.resolve();
  }

  async close(): Promise<void> {
    this.end();
    await this.opening?.catch(() => undefined);
    if (this.conn) await closeWithin(this.conn, CLOSE_MS);
  }
}

/** Closes a broker connection, or drops its socket when the broker does not answer the close in time (a half-dead connection). */
async function closeWithin(conn: ChannelModel, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    conn.close().then(() => true, () => true),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms))),
  ]);
  clearTimeout(timer);
  if (!closed) (conn as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}
