import { createLogger, readConfigOrExit, runMain } from '@inventory/core';
import { gatewayConfig } from './config';
import { createGateway } from './gateway';

const config = readConfigOrExit(gatewayConfig);
runMain('gateway', createLogger('gateway', config.LOG_LEVEL), createGateway(config));
