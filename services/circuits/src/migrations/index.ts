import { historyOpenVersions, historyTables, sharedTables, type Migration } from '@inventory/rest';
import { initial } from './0001_initial';
import { outboxJson } from './0002_outbox_json';

/** In order; each entry is frozen once released (docs/decisions/005-frozen-migrations.md). */
// the last: the library's migration of the tables every service has (its history made them already; it finds them)
export const migrations: Migration[] = [initial, outboxJson, sharedTables, historyTables, historyOpenVersions];
