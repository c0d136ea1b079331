import { readConfigOrExit, runMain, createLogger } from '@inventory/core';
import { extrasConfig } from './config';
import { createService } from './service';

const config = readConfigOrExit(extrasConfig);
runMain('extras', createLogger('extras', config.LOG_LEVEL), createService(config));
