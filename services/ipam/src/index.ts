export { createService } from './service';
export * as ipamModels from './models';
