import { historyOpenVersions, historyTables, sharedTables, type Migration } from '@inventory/rest';
import { initial } from './0001_initial';
import { authAttempts } from './0002_auth_attempts';
import { indexNames } from './0003_index_names';
import { objectVersions } from './0004_object_versions';
import { outbox } from './0005_outbox';
import { outboxIndexes } from './0006_outbox_indexes';
import { outboxReference } from './0007_outbox_reference';
import { processedEvents } from './0008_processed_events';
import { outboxJson } from './0009_outbox_json';
import { dashboards } from './0010_dashboards';

/** In order; each entry is frozen once released (docs/decisions/005-frozen-migrations.md). */
export const migrations: Migration[] = [
  initial,
  authAttempts,
  indexNames,
  objectVersions,
  outbox,
  outboxIndexes,
  outboxReference,
  processedEvents,
  outboxJson,
  dashboards,
  // the library's migration of the tables every service has: its history made them already, so it finds them
  sharedTables,
  historyTables,
  historyOpenVersions,
];
