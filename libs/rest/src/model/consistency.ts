import type { Counter, Histogram, Logger, Metrics } from '@inventory/core';
import type { Consistency, ConsumerStatus } from '@inventory/events';
import { CONTENT_TYPES, type ServiceClient } from '@inventory/refs';

/**
 * The writer's side of read-your-writes across services
 * (docs/decisions/025-consistency.md): after its commit, a write waits until
 * every service that serves state derived from its events (projections, the
 * change log) confirms it applied them, at most `CONSISTENCY_WAIT_MS`; what
 * has not confirmed by then is named in `X-Consistency-Pending`.
 */

/** An event a write produced: its id and model. */
export interface WrittenEvent {
  id: string;
  model: string;
}

/** The header that names the services a write's answer did not wait for. */
export const PENDING_HEADER = 'X-Consistency-Pending';

/**
 * What a service reads, by reader (the queue that applies them, whose name
 * starts with the service's: `dcim.projections`, `extras.changelog`): the
 * labels of the models whose events it applies, or `#` for every model.
 * Each reader confirms on its own: a service's projection having applied
 * an event says nothing of its change log.
 */
export type Reads = Record<string, string[]>;

const matches = (models: string[], label: string) => models.includes('#') || models.includes(label);

/** The service a reader belongs to (`dcim` of `dcim.projections`). */
export const serviceOf = (reader: string): string => reader.split('.')[0];

/** How often what other services read is asked again (a redeployed service may read more). */
const REFRESH_MS = 60_000;
/** A service that could not say what it reads is asked again after this (meanwhile it counts as reading everything). */
const UNKNOWN_RETRY_MS = 5_000;
/** The first question to a service waits this long; a service that does not answer in time counts as reading everything. */
const ASK_TIMEOUT_MS = 1_000;

interface Known {
  reads: Reads | null;
  at: number;
  asking?: Promise<void>;
}

export interface GateOptions {
  service: string;
  refs: ServiceClient;
  /** What this service itself reads (its projections; extras' change log reads everything). */
  ownReads: () => Reads;
  hub: Consistency | null;
  waitMs: number;
  log: Logger;
  metrics: Metrics;
}

export class ConsistencyGate {
  private readonly known = new Map<string, Known>();
  /** This service's readers (consumers whose effects it serves), for `/api/status/`. */
  private readonly readers = new Map<string, { status(): Promise<ConsumerStatus> }>();
  private readonly counted: { pending: Counter<'service'>; wait: Histogram };

  constructor(private readonly o: GateOptions) {
    this.counted = {
      pending: o.metrics.counter(
        'inventory_consistency_pending_total',
        'Writes answered before a service that reads their events had applied them (after CONSISTENCY_WAIT_MS, or with the broker down), by that service.',
        ['service'],
      ),
      wait: o.metrics.histogram('inventory_consistency_wait_seconds', "Time a write's answer waited for the services that read its events to apply them."),
    };
  }

  /** A consumer of this service whose effects it serves: its state shows in `/api/status/`. */
  addReader(queue: string, consumer: { status(): Promise<ConsumerStatus> }): void {
    this.readers.set(queue, consumer);
  }

  /** Each reader's state: connected, backlog, lag per source (`/internal/consistency`). */
  async status(): Promise<Record<string, ConsumerStatus>> {
    const entries = await Promise.all([...this.readers].map(async ([queue, c]) => [queue, await c.status()] as const));
    return Object.fromEntries(entries);
  }

  /** What this service reads, as `/internal/references` tells the others. */
  reads(): Reads {
    return this.o.ownReads();
  }

  /** Confirms to each event's owner that `reader` (a queue of this service's) has applied it. */
  confirm(reader: string, events: { id: string; owner: string }[]): void {
    this.o.hub?.confirm(reader, events);
  }

  /** Whether writes wait at all (CONSISTENCY_WAIT_MS=0 turns the guarantee off). */
  get enabled(): boolean {
    return this.o.waitMs > 0 && this.o.hub !== null;
  }

  /**
   * Waits until the services that read these events confirm them (or the
   * bound); the services that had not, sorted. Without a broker session no
   * confirmation can come: those services are named at once.
   */
  async settle(events: WrittenEvent[]): Promise<string[]> {
    const hub = this.o.hub;
    if (!events.length || !hub || this.o.waitMs <= 0) return [];
    const byModel = await this.readersOf([...new Set(events.map((e) => e.model))]);
    const expected = events.flatMap((e) => {
      const services = byModel.get(e.model) ?? [];
      return services.length ? [{ id: e.id, services }] : [];
    });
    if (!expected.length) return [];
    const started = process.hrtime.bigint();
    const readers = hub.connected ? await hub.wait(expected, this.o.waitMs) : expected.flatMap((e) => e.services);
    const pending = [...new Set(readers.map(serviceOf))].sort();
    this.counted.wait.observe(Number(process.hrtime.bigint() - started) / 1e9);
    for (const service of pending) this.counted.pending.inc({ service });
    if (pending.length) this.o.log.warn({ pending, events: events.length }, 'write answered before every reader applied it');
    return pending;
  }

  /** Per model, the readers (of every service, this one included) that apply its events. */
  async readersOf(labels: string[]): Promise<Map<string, string[]>> {
    const all = Object.entries(Object.assign({}, ...(await Promise.all(this.services().map((s) => this.readsOf(s))))) as Reads);
    return new Map(labels.map((label) => [label, all.filter(([, models]) => matches(models, label)).map(([reader]) => reader)]));
  }

  /** This service and the other deployed services that hold objects (the gateway reads no events). */
  private services(): string[] {
    const owners = new Set(CONTENT_TYPES.map((ct) => ct.service));
    return [this.o.service, ...this.o.refs.services().filter((s) => s !== this.o.service && owners.has(s))];
  }

  private async readsOf(service: string): Promise<Reads> {
    if (service === this.o.service) return this.o.ownReads();
    const now = Date.now();
    let k = this.known.get(service);
    if (!k) {
      k = { reads: null, at: 0 };
      this.known.set(service, k);
    }
    const stale = k.reads === null ? now - k.at > UNKNOWN_RETRY_MS : now - k.at > REFRESH_MS;
    if (stale && !k.asking) k.asking = this.ask(service, k);
    // the first answer is waited for (briefly); later ones refresh in the background
    if (k.reads === null && k.asking) await Promise.race([k.asking, new Promise((r) => setTimeout(r, ASK_TIMEOUT_MS).unref())]);
    // a service that cannot say what it reads (down since before this one asked) may read anything
    return k.reads ?? { [`${service}.unknown`]: ['#'] };
  }

  private async ask(service: string, k: Known): Promise<void> {
    try {
      const res = await this.o.refs.call<{ reads?: Reads }>(service, 'GET', '/internal/references');
      const reads: Reads = {};
      for (const [reader, models] of Object.entries(res.reads ?? {})) if (Array.isArray(models) && reader.startsWith(`${service}.`)) reads[reader] = models.map(String);
      k.reads = reads;
    } catch {
      // the answer last known stands; none known: asked again after UNKNOWN_RETRY_MS
    } finally {
      k.at = Date.now();
      k.asking = undefined;
    }
  }
}
