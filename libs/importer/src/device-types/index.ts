export { importDeviceTypes, type DeviceTypeImportOptions, type DeviceTypeImportSummary, type KindCounts } from './import';
export { main as importDeviceTypesCli, formatSummary } from './cli';
export { LibraryFileError, ApiError, describeProblem, type FileProblem } from './errors';
export { TEMPLATE_KINDS } from './mapping';
