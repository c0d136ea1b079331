export { createService } from './service';
export * as virtualizationModels from './models';
