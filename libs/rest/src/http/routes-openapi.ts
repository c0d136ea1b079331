import type { RouteDecl, RouteOperation, RouteVerb } from './routes';
import { AS_OF_PARAMETER } from './openapi';

type Schema = Record<string, unknown>;

const json = (schema: Schema) => ({ 'application/json': { schema } });
const DETAIL = json({ $ref: '#/components/schemas/Detail' });

/** `/api/ipam/prefixes/:id/available-ips/` → `/api/ipam/prefixes/{id}/available-ips/`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z_]\w*)/g, '{$1}');

/** drf-spectacular's operation id: the path's words, then list / retrieve / create / ... */
function operationId(path: string, verb: RouteVerb, op: RouteOperation): string {
  if (op.operationId) return op.operationId;
  const words = path.split('/').filter((s) => s && s !== 'api' && !s.startsWith(':')).map((s) => s.replace(/-/g, '_'));
  const suffix = { get: op.response.type === 'array' ? 'list' : 'retrieve', post: 'create', put: 'update', patch: 'partial_update', delete: 'destroy' }[verb];
  return [...words, suffix].join('_');
}

function pathParameters(route: RouteDecl): Schema[] {
  return [...route.path.matchAll(/:([A-Za-z_]\w*)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'integer' },
    ...(name === 'id' && route.idOf ? { description: `A unique integer value identifying this ${route.idOf}.` } : {}),
  }));
}

function operation(route: RouteDecl, verb: RouteVerb, op: RouteOperation): Schema {
  // every GET reads as of a past moment too (read/as-of.ts)
  const params = [...pathParameters(route), ...(op.query ?? []), ...(verb === 'get' ? [AS_OF_PARAMETER] : [])];
  const content: Schema = { ...json(op.response) };
  for (const [type, schema] of Object.entries(op.alternatives ?? {})) content[type] = { schema };
  const responses: Schema = {
    [String(op.status ?? 200)]: { description: '', content },
    ...(op.request ? { '400': { description: 'Invalid input', content: json({ type: 'object', additionalProperties: true }) } } : {}),
    '403': { description: 'Permission denied', content: DETAIL },
    ...(params.some((p) => p.in === 'path') ? { '404': { description: 'Not found', content: DETAIL } } : {}),
    '405': { description: `Method not allowed (Allow lists the route's methods)`, content: DETAIL },
  };
  const area = route.path.split('/')[2] ?? '';
  return {
    operationId: operationId(route.path, verb, op),
    ...(op.summary ? { description: op.summary } : {}),
    tags: [area.charAt(0).toUpperCase() + area.slice(1)],
    ...(params.length ? { parameters: params } : {}),
    ...(op.request ? { requestBody: { required: true, content: json(op.request) } } : {}),
    responses,
  };
}

/** The paths and component schemas of the routes a service mounted, merged into its OpenAPI part. */
export function routeOpenApi(routes: RouteDecl[]): { paths: Schema; schemas: Schema } {
  const paths: Schema = {};
  const schemas: Schema = {};
  for (const route of routes) {
    const item: Schema = {};
    for (const [verb, op] of Object.entries(route.operations) as [RouteVerb, RouteOperation][]) item[verb] = operation(route, verb, op);
    paths[openApiPath(route.path)] = item;
    Object.assign(schemas, route.schemas ?? {});
  }
  return { paths, schemas };
}
