'use strict';
/** Child process of the benchmark: boots the named services (or the gateway) from the built packages. */
const { baseConfig, readConfig } = require('@inventory/core');

const FACTORIES = {
  users: () => require('@inventory/users').createService,
  tenancy: () => require('@inventory/tenancy').createService,
  extras: () => require('@inventory/extras').createService,
  webhooks: () => (base) => {
    const w = require('@inventory/webhooks');
    return w.createService(readConfig(w.webhooksConfig, { ...process.env, ...base }));
  },
  dcim: () => require('@inventory/dcim').createService,
  circuits: () => require('@inventory/circuits').createService,
  virtualization: () => require('@inventory/virtualization').createService,
  ipam: () => require('@inventory/ipam').createService,
};

async function main() {
  const ports = JSON.parse(process.env.BENCH_PORTS);
  const running = [];
  for (const [name, port] of Object.entries(ports)) {
    if (name === 'gateway') {
      const gw = require('@inventory/gateway');
      const g = gw.createGateway(readConfig(gw.gatewayConfig, { ...process.env, PORT: String(port), LOG_LEVEL: 'warn' }));
      await g.start(port);
      running.push(g);
    } else {
      const s = FACTORIES[name]()(readConfig(baseConfig, { ...process.env, PORT: String(port), LOG_LEVEL: 'warn' }));
      await s.start(port);
      running.push(s);
    }
  }
  process.send('ready');
  process.on('message', async (m) => {
    if (m === 'stop') {
      for (const s of running.reverse()) await s.stop().catch(() => undefined);
      process.exit(0);
    }
  });
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
