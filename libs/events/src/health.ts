import amqp from 'amqplib';

/** How long a probe's answer is reused: a burst of readiness probes opens one connection, not one each. */
export const BROKER_PROBE_CACHE_MS = 2000;

const cache = new Map<string, { at: number; result: Promise<boolean> }>();

/**
 * Whether the broker at `url` accepts an AMQP connection (connect, then
 * close) within `timeoutMs`. Answers are cached per URL for ~2 s, and
 * concurrent callers share the probe in flight. Never throws.
 */
export function brokerReachable(url: string, timeoutMs = 2000): Promise<boolean> {
  const now = Date.now();
  const hit = cache.get(url);
  if (hit && now - hit.at < BROKER_PROBE_CACHE_MS) return hit.result;
  const result = probe(url, timeoutMs);
  cache.set(url, { at: now, result });
  // The cache window starts when the answer is known, so a slow probe is not repeated at once.
  void result.then(() => {
    const entry = cache.get(url);
    if (entry?.result === result) entry.at = Date.now();
  });
  return result;
}

/** Forget cached answers (tests). */
export function resetBrokerProbeCache(): void {
  cache.clear();
}

function probe(url: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (ok: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    timer.unref();
    amqp
      // `timeout` bounds the socket connect; the timer above bounds the whole handshake.
      .connect(url, { timeout: timeoutMs })
      .then(async (conn) => {
        conn.on('error', () => undefined);
        finish(true); // a no-op when the timer already answered
        await conn.close().catch(() => undefined);
      })
      .catch(() => finish(false));
  });
}
