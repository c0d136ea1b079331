export * from './identity';
export * from './permissions';
export * from './networks';
