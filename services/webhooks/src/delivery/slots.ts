/** Gives the slot back when the attempt is done. */
export type Release = () => void;

interface Share {
  /** Start times of the attempts in flight. */
  running: Set<{ since: number }>;
  waiting: ((release: Release | null) => void)[];
}

/**
 * Each webhook's share of one process's senders, so that a slow receiver
 * never holds up another webhook's deliveries: a webhook has at most `cap`
 * attempts in flight, and the next ones wait here while those are quick. Once
 * one of its attempts has run longer than `slowMs` (its receiver is slow, not
 * just busy), what waits, and what comes next, is handed back to be parked
 * in the broker, which frees the prefetch slots for other webhooks.
 */
export class WebhookSlots {
  private readonly shares = new Map<number, Share>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly cap: number,
    private readonly slowMs: number,
  ) {
    this.timer = setInterval(() => this.parkSlow(), Math.max(10, slowMs / 4));
    this.timer.unref();
  }

  /** A release once the attempt may start; null when it should be parked instead. */
  take(webhook: number): Promise<Release | null> {
    const share = this.share(webhook);
    if (share.running.size < this.cap) return Promise.resolve(this.start(webhook, share));
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
    let released = false;
    return () => {
      if (released) return;
      released = true;
      share.running.delete(token);
      const next = share.waiting.shift();
      if (next) next(this.start(webhook, share));
      else if (!share.running.size) this.shares.delete(webhook);
    };
  }

  private isSlow(share: Share, now: number): boolean {
    for (const { since } of share.running) if (now - since > this.slowMs) return true;
    return false;
  }

  private parkSlow(): void {
    const now = Date.now();
    for (const share of this.shares.values()) {
      if (share.waiting.length && this.isSlow(share, now)) for (const decide of share.waiting.splice(0)) decide(null);
    }
  }
}
