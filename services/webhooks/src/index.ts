export { createService } from './service';
export * as webhooksModels from './models';
