export * from './sql';
export * from './values';
export * from './lookups';
export * from './filterset';
