/**
 * References across services: the projection feed (events and snapshots
 * that keep projections current, delete rules applied on a referrer's side)
 * and the referrers' catalogue (protect checks before a delete). Imports
 * the rooms below it.
 */
export { eventSource, projectionFeed, projectionQueue, recordsFor, snapshotPage } from './projection-feed';
export type { ProjectionFeed } from './projection-feed';
export { checkRemoteProtected, declaredReferences, warmReferences } from './referrers';
export type { Reserved } from './referrers';
