export { runImport, type ImportOptions, type ImportResult } from './run';
export { parseArgs, USAGE } from './cli';
export { ImportFailure } from './api';
export { IGNORED, comparable } from './verify';
export { PLAN, NOT_COPIED } from './plan';
