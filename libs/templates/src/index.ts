export * from './jinja';
export * from './pyvalues';
export * from './filters';
export * from './config';
export * from './pyobject';
export * from './html';
