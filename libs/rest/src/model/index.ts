/**
 * The declaration: a model's fields and options, the types every room shares
 * (rows, the service's and a write's context), the database, and the DDL
 * derived from declarations (tables, migrations, drift). The bottom room:
 * it imports no other room.
 */
export { ConsistencyGate, PENDING_HEADER } from './consistency';
export type { Reads, WrittenEvent } from './consistency';
export { applyCustomFields, customFieldFilters, customFieldValueError, renderCustomFields } from './customfields';
export type { CustomFieldDef } from './customfields';
export { Db, Tx, waitForDatabase } from './db';
export type { Queryable } from './db';
export type { ExtrasApi, NestedTag, RefResult } from './features';
export { columnOf, DECIMAL_DIGITS, DECIMAL_PLACES, f, fieldOf, TENANT_GROUP_HOPS, TEXT_TYPES } from './fields';
export type { Choice, ChoiceField, FieldDef, GenericField, Hop, ManyField, NetworkField, NumberField, OnDelete, RelationField, StringField } from './fields';
export { flattenAttrs, isoDateTime, pyRepr, pyType } from './format';
export { describeSchema, schemaDrift } from './introspect';
export type { SchemaDescription } from './introspect';
export { memo } from './memo';
export { areaOf, CONFIG_CONTEXT_CRITERIA, createdOf, defineModel, titleName } from './model';
export type { AfterCommit, Change, ConfigContextCriterion, CountDef, ModelDef, ModelHooks, Row, Saved, ServiceContext, Touched, UniqueDef, WriteContext } from './model';
export { naturalColumn, naturalize, withNaturalKeys } from './natural';
// IP parsing and formatting are core's (one parser for the API's networks, tokens' allowed IPs and trusted proxies)
export { formatAddress, formatNetwork, isNetwork, networkOf, networkText, parseNetwork } from '@inventory/core';
export { attributesOf, createModelTables, hashKey, IDEMPOTENCY_TABLE, migrate, outboxJsonStatements, runStatements, TAGGED_ITEM_TABLE, uniqueIndexName } from './schema';
export type { Migration } from './schema';
export { sharedTables, sharedTableStatements } from './shared-tables';
export { asOfFunction, HistoryReads, historyDdl, historyName, historyOpenVersions, historyTables, HISTORY_START_TABLE, HISTORY_SUFFIX, keepsHistory, loadHistoryReads, syncHistory } from './history';
export type { RunSql } from './history';
