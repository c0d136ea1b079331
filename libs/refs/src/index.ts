export * from './catalogue';
export * from './client';
export * from './hops';
