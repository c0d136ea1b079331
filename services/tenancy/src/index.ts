export { createService } from './service';
export * as tenancyModels from './models';
