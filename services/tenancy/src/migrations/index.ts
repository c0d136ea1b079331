import { historyOpenVersions, historyTables, sharedTables, type Migration } from '@inventory/rest';
import { initial } from './0001_initial';
import { indexNames } from './0002_index_names';
import { objectVersions } from './0003_object_versions';
import { outbox } from './0004_outbox';
import { outboxIndexes } from './0005_outbox_indexes';
import { outboxReference } from './0006_outbox_reference';
import { processedEvents } from './0007_processed_events';
import { outboxJson } from './0008_outbox_json';

/** In order; each entry is frozen once released (docs/decisions/005-frozen-migrations.md). */
// the last: the library's migration of the tables every service has (its history made them already; it finds them)
export const migrations: Migration[] = [initial, indexNames, objectVersions, outbox, outboxIndexes, outboxReference, processedEvents, outboxJson, sharedTables, historyTables, historyOpenVersions];
