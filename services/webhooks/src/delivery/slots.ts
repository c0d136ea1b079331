/** Gives the slot back when the attempt is done. */
export type Release = () => void;

interface Share {
  /** Start times of the attempts in flight. */
  running: Set<{ since: number }>;
  waiting: ((release: Release | null) => void)[];
}

/**
 * One process's senders, shared fairly between webhooks, so that a slow
 * receiver never holds up another webhook's deliveries: at most `total`
 * attempts in flight, a webhook at most `cap` of them, and the attempts
 * that wait are started a webhook at a time in turn. While a webhook's
 * attempts are quick, its next ones wait here; once one of them has run
 * longer than `slowMs` (its receiver is slow, not just busy), what waits for
 * it, and what comes next, is handed back to be parked in the broker, which
 * frees the prefetch slots for other webhooks.
 */
export class WebhookSlots {
  private readonly shares = new Map<number, Share>();
  private inFlight = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly cap: number,
    private readonly total: number,
    private readonly slowMs: number,
  ) {
    this.timer = setInterval(() => this.parkSlow(), Math.max(10, slowMs / 4));
    this.timer.unref();
  }

  /** A release once the attempt may start; null when it should be parked instead. */
  take(webhook: number): Promise<Release | null> {
    const share = this.share(webhook);
    if (share.running.size < this.cap && this.inFlight < this.total && !share.waiting.length) return Promise.resolve(this.start(webhook, share));
    if (this.isSlow(share, Date.now())) return Promise.resolve(null);
    return new Promise((decide) => share.waiting.push(decide));
  }

  /** Everything waiting is handed back (to be parked). */
  close(): void {
    clearInterval(this.timer);
    for (const share of this.shares.values()) for (const decide of share.waiting.splice(0)) decide(null);
  }

  private share(webhook: number): Share {
    let share = this.shares.get(webhook);
    if (!share) {
      share = { running: new Set(), waiting: [] };
      this.shares.set(webhook, share);
    }
    return share;
  }

  private start(webhook: number, share: Share): Release {
    const token = { since: Date.now() };
    share.running.add(token);
    this.inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      share.running.delete(token);
      this.inFlight--;
      if (!share.running.size && !share.waiting.length) this.shares.delete(webhook);
      this.startWaiting();
    };
  }

  /** Starts what waits while there is room, one webhook at a time in turn (a webhook that got a slot goes to the back). */
  private startWaiting(): void {
    let started = true;
    while (started && this.inFlight < this.total) {
      started = false;
      for (const [webhook, share] of this.shares) {
        if (!share.waiting.length || share.running.size >= this.cap) continue;
        const decide = share.waiting.shift() as (release: Release | null) => void;
        // to the back of the turn order
        this.shares.delete(webhook);
        this.shares.set(webhook, share);
        decide(this.start(webhook, share));
        started = true;
        break;
      }
    }
  }

  /** Whether its oldest attempt in flight has run past `slowMs` (a Set keeps insertion order: the first is the oldest). */
  private isSlow(share: Share, now: number): boolean {
    const oldest = share.running.values().next();
    return !oldest.done && now - oldest.value.since > this.slowMs;
  }

  private parkSlow(): void {
    const now = Date.now();
    for (const share of this.shares.values()) {
      if (share.waiting.length && this.isSlow(share, now)) for (const decide of share.waiting.splice(0)) decide(null);
    }
  }
}
