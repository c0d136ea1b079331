export { createService } from './service';
export * as extrasModels from './models';
export { extrasConfig, type ExtrasConfig, type MediaSettings } from './config';
