export * from './identity';
export * from './permissions';
