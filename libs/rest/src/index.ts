/**
 * @inventory/rest: the engine that serves declared models. Its rooms, lowest
 * first (docs/decisions/026-rest-rooms.md): model, projections, read, write,
 * references, http; `service.ts` assembles them. This file exports what the
 * rest of the monorepo uses.
 */
export { areaOf, createdOf, createModelTables, historyOpenVersions, historyTables, loadHistoryReads, syncHistory, sharedTables, customFieldValueError, Db, defineModel, describeSchema, f, formatAddress, formatNetwork, hashKey, isNetwork, isoDateTime, memo, migrate, naturalize, networkOf, networkText, outboxJsonStatements, parseNetwork, runStatements, schemaDrift, TAGGED_ITEM_TABLE, TENANT_GROUP_HOPS, TEXT_TYPES, Tx, withNaturalKeys } from './model';
export type { AfterCommit, Change, Choice, CountDef, CustomFieldDef, ExtrasApi, FieldDef, Hop, ManyField, Migration, ModelDef, ModelHooks, NestedTag, Queryable, RefResult, RelationField, Row, Saved, SchemaDescription, ServiceContext, Touched, UniqueDef, WriteContext } from './model';
export { absoluteUrls, projectedModels, projectedNested, projection, projectionTable, recordOf } from './projections';
export { baseUrl, pruneHistory, contentTypeIdFilter, contentTypesFilter, contentTypesIdFilter, decorateL2vpnTermination, fetchByIds, identityOf, ids, ignoredHeader, ilike, keyResolver, L2VPN_READS, l2vpnFilters, LIST_ACTION_PARAMS, nestedFor, objectUrl, pageLinks, parseId, parsePage, parseUuid, READ_OPTION_PARAMS, relatedId, renderUserTemplate, represent, requestUrl, requirePermission, savedFilterVisibility, searchFilter, treeIds } from './read';
export { awaitReaders, capture, insert, isPlainObject, notADict, noteTouched, prepare, remove, removeGenericReferrers, resolveLocal, resolveRefs, rewriteCustomFieldData, runChange, runWrite, update } from './write';
export type { CustomFieldDataOp, Respond } from './write';
export { eventSource, warmReferences } from './references';
export { createObjects, modelOpenApi, mountRoute, pageSchema, RENDERED_SCHEMAS, renderConfigHandler, renderConfigRoute, renderOperation, schemaName } from './http';
export type { RouteDecl, RouteHandler, RouteOperation } from './http';
export { periodic } from './periodic';
export { byIdField, rootName, typeName } from './graphql';
export { createRestService } from './service';
export type { RestService, Worker } from './service';
