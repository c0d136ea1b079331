/**
 * The projections: this service's copies of other services' objects (their
 * tables, records, nested representations and sort keys), the extras client
 * whose tags are projected, and the reservations that hold a referenced
 * object while a write that names it is in flight. Imports `model` only.
 */
export { RemoteExtras } from './extras-client';
export { applyRecords, ensureProjections, projectedId, projectedModels, projectedNested, projectedTextList, projection, projectionTable, recordOf, tagProjection } from './projections';
export type { ProjectionRecord, SnapshotPage } from './projections';
export { absoluteUrls, referenceOf } from './reference';
export { dropReservations, guardReference, release, reserveAndCheck, retryingReserved } from './reservations';
