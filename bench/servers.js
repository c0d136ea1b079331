'use strict';
/**
 * Child process of the benchmark: boots the named services (or the gateway) from the built
 * packages, each reading its own configuration as its main.ts does. The users service creates
 * its first superuser when SUPERUSER_NAME/SUPERUSER_PASSWORD are set (as deployed).
 */
const { createFromEnv } = require('../deploy/services');

// the production heap policy, as the image's entry point applies it
require('../deploy/heap').applyHeapPolicy();

async function main() {
  const ports = JSON.parse(process.env.BENCH_PORTS);
  const running = [];
  const stop = async () => {
    for (const s of running.reverse()) await s.stop().catch(() => undefined);
    process.exit(0);
  };
  // the benchmark went away (it failed, or was stopped): do not outlive it
  process.on('disconnect', stop);
  for (const [name, port] of Object.entries(ports)) {
    const env = { ...process.env, PORT: String(port), LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'warn' };
    // each reads its own configuration schema, as its main.ts (and the image) does
    const s = createFromEnv(name, env);
    await s.start(port);
    running.push(s);
    if (name === 'users' && process.env.SUPERUSER_NAME) await require('@inventory/users').bootstrapAdmin(s, process.env);
  }
  process.send('ready');
  process.on('message', (m) => {
    if (m === 'stop') stop();
    // bench/memory.js: where the resident memory is (V8's heap, buffers, the rest); after a full
    // collection when asked and the process runs with --expose-gc (BENCH_NODE_OPTIONS): what is live
    else if (m === 'memory' || m === 'memory-after-gc') {
      const collect = m === 'memory-after-gc' && typeof global.gc === 'function';
      if (collect) global.gc();
      process.send({ memory: process.memoryUsage(), collected: collect });
    }
  });
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
