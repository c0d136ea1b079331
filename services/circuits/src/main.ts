import { baseConfig, readConfigOrExit, runMain, createLogger } from '@inventory/core';
import { createService } from './service';

const config = readConfigOrExit(baseConfig);
runMain('circuits', createLogger('circuits', config.LOG_LEVEL), createService(config));
