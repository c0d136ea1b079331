export * from './cache';
export * from './errors';
export * from './config';
export * from './context';
export * from './logging';
export * from './http';
export * from './input';
