'use strict';
/**
 * A small closed-loop load generator: `connections` keep-alive clients each
 * send the next request as soon as the previous answer arrived, for a fixed
 * time. Bounded in count and time, loopback only.
 */
const http = require('node:http');

function percentile(sorted, p) {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function load({ url, headers = {}, connections = 32, seconds = 10, warmupSeconds = 2, maxRequests = 2_000_000 }) {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const once = () =>
    new Promise((resolve, reject) => {
      const start = process.hrtime.bigint();
      const req = http.request(
        { host: target.hostname, port: target.port, path: target.pathname + target.search, method: 'GET', headers, agent },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
            else resolve(Number(process.hrtime.bigint() - start) / 1e6);
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
  const run = async (ms, record) => {
    const latencies = [];
    const end = Date.now() + ms;
    let count = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (Date.now() < end && count < maxRequests) {
          count++;
          const l = await once();
          if (record) latencies.push(l);
        }
      }),
    );
    return latencies;
  };
  await run(warmupSeconds * 1000, false);
  const started = Date.now();
  const latencies = await run(seconds * 1000, true);
  const elapsed = (Date.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    rps: Math.round(latencies.length / elapsed),
    p50_ms: Number(percentile(latencies, 50).toFixed(2)),
    p99_ms: Number(percentile(latencies, 99).toFixed(2)),
  };
}

module.exports = { load };
