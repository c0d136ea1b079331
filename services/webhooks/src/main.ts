import { baseConfig, readConfigOrExit, runMain, createLogger } from '@inventory/core';
import { createService } from './service';

const config = readConfigOrExit(baseConfig);
runMain('webhooks', createLogger('webhooks', config.LOG_LEVEL), createService(config));
