/**
 * Runs `work(i)` for i in [from, to), `parallel` at a time, the i-th due
 * `intervalMs` × (i - from) after the start (0: as fast as they go): a
 * steady stream of writes for fault and load tests.
 */
export async function runPaced(from: number, to: number, parallel: number, work: (i: number) => Promise<void>, intervalMs = 0): Promise<void> {
  let next = from;
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < to) {
        const i = next++;
        const wait = t0 + (i - from) * intervalMs - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        await work(i);
      }
    }),
  );
}
