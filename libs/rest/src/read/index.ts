/**
 * Reading: list and detail queries, filters, serialization, read options
 * (fields, omit, cursors), config contexts, saved filters, exports, and what
 * a request asks for (identity, permitted scope, brief). Imports `model` and
 * `projections`.
 */
export { AS_OF_PARAM, asOfGate, ensureHistory, parseAsOf, pruneHistory, readAt } from './as-of';
export { CONFIG_CONTEXT_KEY, ensureConfigContextFunctions, excludesConfigContext, ids, placeConfigContext, relatedId, treeIds } from './config-context';
export { contentTypeIdFilter, contentTypesFilter, contentTypesIdFilter } from './content-type-filters';
export { exportTarget, sendExport } from './export';
export { cachedFilters, filtersFor, ilike, parseUuid, searchFilter } from './filters';
export { decorateL2vpnTermination, l2vpnFilters, L2VPN_READS } from './l2vpn-terminations';
export { keyResolver } from './lookup-source';
export { pageLinks, parsePage } from './pagination';
export { fetchByIds, fetchPage, orderBy } from './query';
export { foldFor } from './folded-relations';
export { listWithOptions, parseFieldSelection, parseReadOptions, READ_OPTION_PARAMS, readOne, readSelected } from './read-options';
export { identityOf, ignoredHeader, modeOf, parseId, requestUrl, requirePermission, wantsBrief } from './request';
export { LIST_ACTION_PARAMS, savedFilterVisibility, withSavedFilters } from './saved-filters';
export { fieldsFor, isTimestamp, linkedIds, nestedFor, objectUrl, represent } from './serialize';
export { baseUrl } from './urls';
export { renderUserTemplate } from './user-templates';
