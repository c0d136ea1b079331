export { createService } from './service';
export * as extrasModels from './models';
