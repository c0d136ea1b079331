import { baseConfig, readConfigOrExit, runMain, createLogger } from '@inventory/core';
import { createService } from './service';

const config = readConfigOrExit(baseConfig);
runMain('tenancy', createLogger('tenancy', config.LOG_LEVEL), createService(config));
