import { historyOpenVersions, historyTables, sharedTables, type Migration } from '@inventory/rest';
import { initial } from './0001_initial';
import { indexNames } from './0002_index_names';
import { objectVersions } from './0003_object_versions';
import { objectChanges } from './0004_object_changes';
import { outbox } from './0005_outbox';
import { outboxIndexes } from './0006_outbox_indexes';
import { outboxReference } from './0007_outbox_reference';
import { configContexts } from './0008_config_contexts';
import { outboxJson } from './0009_outbox_json';
import { journalEntries } from './0010_journal_entries';
import { imageAttachments } from './0011_image_attachments';
import { lists } from './0012_lists';
import { objectChangeLatest } from './0013_object_change_latest';
import { core } from './0014_core';

/** In order; each entry is frozen once released (docs/decisions/005-frozen-migrations.md). */
// the last: the library's migration of the tables every service has (its history made them already; it finds them)
export const migrations: Migration[] = [initial, indexNames, objectVersions, objectChanges, outbox, outboxIndexes, outboxReference, configContexts, outboxJson, journalEntries, imageAttachments, lists, objectChangeLatest, core, sharedTables, historyTables, historyOpenVersions];
