export { createService } from './service';
export { ipamConfig, type IpamConfig } from './config';
export * as ipamModels from './models';
export * as allocation from './allocation';
