import { readConfigOrExit, runMain, createLogger } from '@inventory/core';
import { bootstrapAdmin } from './bootstrap';
import { usersConfig } from './config';
import { createService } from './service';

const config = readConfigOrExit(usersConfig);
const log = createLogger('users', config.LOG_LEVEL);
const service = createService(config);
runMain('users', log, service, async () => {
  const result = await bootstrapAdmin(service, process.env);
  if (result.created && result.password) {
    // shown once, on the console only (never through the logger)
    process.stdout.write(
      `\nCreated superuser "${result.username}".\n  password:  ${result.password}\n  API token: ${result.token}\nChange the password after the first login.\n\n`,
    );
  } else if (result.created) {
    log.info({ username: result.username }, 'superuser created');
  }
});
