export { createService } from './service';
export * as ipamModels from './models';
export * as allocation from './allocation';
