export { createService } from './service';
export { usersConfig, type UsersConfig } from './config';
export { bootstrapAdmin, type BootstrapResult } from './bootstrap';
export { hashPassword, verifyPassword } from './passwords';
export * as usersModels from './models';
