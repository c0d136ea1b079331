interface Waiting<In, Out> {
  input: In;
  resolve(out: Out): void;
  reject(err: unknown): void;
}

/**
 * Gathers calls into one call of `run` (a statement for many deliveries
 * instead of one each), as a database's group commit does: a call made while
 * no batch runs goes at the end of the current turn of the event loop, with
 * whatever else that turn asked for; calls made while a batch runs wait for
 * it and go together in the next. An idle dispatcher adds no wait; a busy one
 * makes fewer, larger statements.
 */
export class Batcher<In, Out> {
  private waiting: Waiting<In, Out>[] = [];
  private scheduled = false;
  private running = false;

  constructor(
    /** One answer per input, in the same order. */
    private readonly run: (inputs: In[]) => Promise<Out[]>,
    private readonly maxBatch = 500,
  ) {}

  call(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting.splice(0, this.maxBatch);
    if (!batch.length) return;
    this.running = true;
    try {
      const outs = await this.run(batch.map((b) => b.input));
      batch.forEach((b, i) => b.resolve(outs[i]));
    } catch (err) {
      batch.forEach((b) => b.reject(err));
    } finally {
      this.running = false;
      if (this.waiting.length) this.schedule();
    }
  }
}
