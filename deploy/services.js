'use strict';
/**
 * The services behind the gateway, in the order the quick start starts them
 * (users first: the first superuser is made there), each with the config
 * schema its main.ts reads. Shared by deploy/start.js (all in one process)
 * and deploy/migrate.js (the migration job).
 */
const SERVICES = {
  users: () => ({ schema: require('@inventory/users').usersConfig, create: require('@inventory/users').createService }),
  tenancy: () => ({ schema: require('@inventory/core').baseConfig, create: require('@inventory/tenancy').createService }),
  dcim: () => ({ schema: require('@inventory/core').baseConfig, create: require('@inventory/dcim').createService }),
  circuits: () => ({ schema: require('@inventory/core').baseConfig, create: require('@inventory/circuits').createService }),
  virtualization: () => ({ schema: require('@inventory/core').baseConfig, create: require('@inventory/virtualization').createService }),
  ipam: () => ({ schema: require('@inventory/ipam').ipamConfig, create: require('@inventory/ipam').createService }),
  extras: () => ({ schema: require('@inventory/extras').extrasConfig, create: require('@inventory/extras').createService }),
  webhooks: () => ({ schema: require('@inventory/webhooks').webhooksConfig, create: require('@inventory/webhooks').createService }),
};

/**
 * A service (or, named `gateway`, the gateway) built from `env` as its main.ts
 * builds it (readConfig throws, naming the variable, on a bad value).
 */
function createFromEnv(name, env) {
  const { readConfig } = require('@inventory/core');
  if (name === 'gateway') {
    const gw = require('@inventory/gateway');
    return gw.createGateway(readConfig(gw.gatewayConfig, env));
  }
  const { schema, create } = SERVICES[name]();
  return create(readConfig(schema, env));
}

module.exports = { SERVICE_NAMES: Object.keys(SERVICES), createFromEnv };
