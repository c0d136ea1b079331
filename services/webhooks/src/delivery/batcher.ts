interface Waiting<In, Out> {
  input: In;
  resolve(out: Out): void;
  reject(err: unknown): void;
}

/**
 * Gathers calls into one call of `run` (a statement for many deliveries
 * instead of one each), as a database's group commit does: a call made while
 * fewer than `parallel` batches run goes at the end of the current turn of
 * the event loop, with whatever else that turn asked for; calls made while
 * that many run wait for one to end and go together in the next. An idle
 * dispatcher adds no wait; a busy one makes fewer, larger statements.
 */
export class Batcher<In, Out> {
  private waiting: Waiting<In, Out>[] = [];
  private scheduled = false;
  private running = 0;

  constructor(
    /** One answer per input, in the same order. */
    private readonly run: (inputs: In[]) => Promise<Out[]>,
    private readonly maxBatch = 500,
    /** Batches under way at once (reads of different rows may overlap; 1 for a strict group commit). */
    private readonly parallel = 1,
  ) {}

  call(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running >= this.parallel || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting.splice(0, this.maxBatch);
    if (!batch.length) return;
    this.running++;
    try {
      const outs = await this.run(batch.map((b) => b.input));
      batch.forEach((b, i) => b.resolve(outs[i]));
    } catch (err) {
      batch.forEach((b) => b.reject(err));
    } finally {
      this.running--;
      if (this.waiting.length) this.schedule();
    }
  }
}
