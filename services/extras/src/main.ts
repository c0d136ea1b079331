import { baseConfig, readConfigOrExit, onShutdown, createLogger } from '@inventory/core';
import { createService } from './service';

const config = readConfigOrExit(baseConfig);
const service = createService(config);
service.start().then(
  () => onShutdown(createLogger('extras'), () => service.stop()),
  (err) => {
    process.stderr.write(`extras failed to start: ${(err as Error).stack}\n`);
    process.exit(1);
  },
);
