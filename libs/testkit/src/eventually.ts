/** Polls until `check` holds (events arrive a few milliseconds after the write that caused them); fails after `ms`. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 15_000, what: string | (() => string) = 'the condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
