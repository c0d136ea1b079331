import { baseConfig, readConfigOrExit, runMain, createLogger } from '@inventory/core';
import { createService } from './service';

const config = readConfigOrExit(baseConfig);
runMain('ipam', createLogger('ipam', config.LOG_LEVEL), createService(config));
