export * from './database';
export * from './http';
export * from './stack';
export * from './broker';
export * from './openapi-check';
export * from './contract';
export * from './schema-history';
