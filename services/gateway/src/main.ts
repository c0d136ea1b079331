import { createLogger, onShutdown, readConfigOrExit } from '@inventory/core';
import { gatewayConfig } from './config';
import { createGateway } from './gateway';

const config = readConfigOrExit(gatewayConfig);
const gateway = createGateway(config);
gateway.start().then(
  () => onShutdown(createLogger('gateway', config.LOG_LEVEL), () => gateway.stop()),
  (err) => {
    process.stderr.write(`gateway failed to start: ${(err as Error).stack}\n`);
    process.exit(1);
  },
);
