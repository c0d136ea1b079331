import { readConfigOrExit, runMain, createLogger } from '@inventory/core';
import { ipamConfig } from './config';
import { createService } from './service';

const config = readConfigOrExit(ipamConfig);
runMain('ipam', createLogger('ipam', config.LOG_LEVEL), createService(config));
