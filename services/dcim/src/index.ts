export { createService } from './service';
export * as dcimModels from './models';
