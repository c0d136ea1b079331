import { baseConfig, readConfigOrExit, runMain, createLogger } from '@inventory/core';
import { createService } from './service';

const config = readConfigOrExit(baseConfig);
runMain('virtualization', createLogger('virtualization', config.LOG_LEVEL), createService(config));
