import { historyOpenVersions, historyTables, sharedTables, type Migration } from '@inventory/rest';
import { initial } from './0001_initial';
import { deliveryIndexes } from './0002_delivery_indexes';
import { deliveryContextText } from './0003_delivery_context_text';
import { outboxJson } from './0004_outbox_json';
import { eventRules } from './0005_event_rules';

/** In order; each entry is frozen once released (docs/decisions/005-frozen-migrations.md). */
// the last: the library's migration of the tables every service has (its history made them already; it finds them)
export const migrations: Migration[] = [initial, deliveryIndexes, deliveryContextText, outboxJson, eventRules, sharedTables, historyTables, historyOpenVersions];
