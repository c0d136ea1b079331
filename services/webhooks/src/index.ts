export { createService } from './service';
export * as webhooksModels from './models';
export { webhooksConfig, type WebhooksConfig } from './config';
