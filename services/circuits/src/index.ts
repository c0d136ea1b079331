export { createService } from './service';
export * as circuitsModels from './models';
