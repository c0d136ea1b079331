import { readConfigOrExit, runMain, createLogger } from '@inventory/core';
import { webhooksConfig } from './config';
import { createService } from './service';

const config = readConfigOrExit(webhooksConfig);
runMain('webhooks', createLogger('webhooks', config.LOG_LEVEL), createService(config));
