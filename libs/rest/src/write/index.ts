/**
 * Writing: the unit of work, preparation and validation of a body, the
 * resolution of references it names, persistence, uniqueness, change
 * records and idempotency keys. Imports `model`, `projections`, `read`.
 */
export { capture, noteTouched, snapshotOf } from './changes';
export { rewriteCustomFieldData } from './customfield-data';
export type { CustomFieldDataOp } from './customfield-data';
export { resolveLocal, resolveRefs } from './relations';
export { uniqueErrors } from './unique';
export { IMPORT_HEADER, advanceSequence, keepCreated, keptIdOf, takenIds } from './import-mode';
export { awaitReaders, runChange, runWrite } from './unit-of-work';
export type { Respond, WriteResult } from './unit-of-work';
export { applyReferrerRule, dependentsConflict, genericAllows, insert, insertMany, isPlainObject, notADict, prepare, protectedGenerics, protectingObjects, remove, removeGenericReferrers, unlinkReferrers, update, afterSave } from './write';
export type { Prepared } from './write';
