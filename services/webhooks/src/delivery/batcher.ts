/**
 * Gathers the calls made in one turn of the event loop into one call of
 * `run` (a statement for many deliveries instead of one each): the senders
 * take messages in bursts, so a burst costs one round trip, and a lone call
 * waits for nothing but the current turn.
 */
export class Batcher<In, Out> {
  private waiting: { input: In; resolve(out: Out): void; reject(err: unknown): void }[] = [];

  constructor(
    /** One answer per input, in the same order. */
    private readonly run: (inputs: In[]) => Promise<Out[]>,
    private readonly maxBatch = 500,
  ) {}

  call(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (this.waiting.length === 1) setImmediate(() => this.flush());
      else if (this.waiting.length >= this.maxBatch) this.flush();
    });
  }

  private flush(): void {
    const batch = this.waiting;
    if (!batch.length) return;
    this.waiting = [];
    this.run(batch.map((b) => b.input)).then(
      (outs) => batch.forEach((b, i) => b.resolve(outs[i])),
      (err: unknown) => batch.forEach((b) => b.reject(err)),
    );
  }
}
