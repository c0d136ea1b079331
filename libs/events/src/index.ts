export * from './envelope';
export * from './outbox';
export * from './topology';
export * from './relay';
export * from './health';
export * from './consumer';
export * from './broadcast';
export * from './connection';
