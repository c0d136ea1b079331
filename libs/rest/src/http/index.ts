/**
 * The HTTP face: the model handlers and router, OPTIONS, OpenAPI, AsyncAPI,
 * ETags, rendered config templates and the internal endpoints other
 * services call. Imports every room below it.
 */
export { RENDERED_SCHEMAS, renderConfigHandler, renderConfigRoute, renderOperation } from './config-templates';
export { createObjects } from './handlers';
export { mountInternal } from './internal';
export { modelOpenApi, pageSchema, schemaName } from './openapi';
export { mountModel } from './router';
export { allowOf, mountRoute, type RouteDecl, type RouteHandler, type RouteOperation, type RouteVerb } from './routes';
