export * from './database';
export * from './http';
export * from './stack';
export * from './broker';
