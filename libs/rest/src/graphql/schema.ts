import { GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap } from 'graphql';
import { lookupsFor, RESERVED_PARAMS } from '@inventory/filtering';
import type { ModelDef, Row, ServiceContext } from '../model';
import { cachedFilters } from '../read';
import { byIdField, isGraphqlName, rootName } from './names';
import { countObjects, listObjects, objectsByIds, type Args } from './reads';
import { reverseRelations } from './relations';
import { FilterValueScalar } from './scalars';
import { selectionOf } from './selection';
import { TypeRegistry, type GraphqlContext } from './types';

/** Who a filter such as a saved filter's `usable` is documented for: the anonymous caller (as OpenAPI does). */
const ANONYMOUS = { user: null, token: null, permissions: [] };

/**
 * One service's subgraph, generated from its declarations: per model
 * `<model>(id)`, `<model>_list(<REST filters>, limit, offset, ordering)`,
 * `<model>_count(<REST filters>)` and `_<Type>_by_id(ids)` (the batched key
 * the gateway's type merging calls); per other service's type that gets
 * reverse relations here, a `_<Type>_by_id` that returns the keys as they
 * are. Built once per service (custom-field filters, which change at run
 * time, are not arguments).
 */
export function buildSubgraph(ctx: ServiceContext): GraphQLSchema {
  const models = [...ctx.models.values()];
  const declared = (label: string) => {
    const m = ctx.models.get(label);
    return new Set(m ? ['id', 'url', 'display', 'tags', 'custom_fields', 'created', 'last_updated', ...Object.keys(m.fields), ...Object.keys(m.counts)] : ['id']);
  };
  const reverse = reverseRelations(models, declared);
  const types = new TypeRegistry(ctx.models, reverse);
  const fields: GraphQLFieldConfigMap<unknown, GraphqlContext> = {};
  for (const model of models) Object.assign(fields, modelRoots(ctx, model, types));
  // stubs that gain fields here: resolvable from their keys alone
  for (const label of reverse.keys()) {
    if (ctx.models.has(label)) continue;
    fields[byIdField(label)] = {
      type: new GraphQLNonNull(new GraphQLList(types.object(label))),
      args: { ids: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLInt))) } },
      resolve: (_r, a: { ids: number[] }) => a.ids.map((id) => ({ id })),
    };
  }
  return new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields }), types: types.stubs().map((l) => types.object(l)) });
}

/** The root fields of one model. */
function modelRoots(ctx: ServiceContext, model: ModelDef, types: TypeRegistry): GraphQLFieldConfigMap<unknown, GraphqlContext> {
  const type = types.object(model.label);
  const name = rootName(model.label);
  const filters = filterArgs(ctx, model);
  const page: GraphQLFieldConfigArgumentMap = {
    limit: { type: GraphQLInt, description: `Objects per page: PAGINATE_COUNT (${ctx.settings.paginateCount}) by default, at most MAX_PAGE_SIZE (${ctx.settings.maxPageSize}).` },
    offset: { type: GraphQLInt, description: 'Objects skipped before the page.' },
    ordering: { type: GraphQLString, description: "REST's `ordering`: field names, `-` for descending, comma-separated." },
  };
  return {
    [name]: {
      type,
      args: { id: { type: new GraphQLNonNull(GraphQLInt) } },
      resolve: (_r, a: { id: number }, c, info) => types.load(c, info, model.label, a.id),
    },
    // nullable: a list refused (no permission, a wrong filter value) is null beside the other root fields' answers
    [`${name}_list`]: {
      type: new GraphQLList(new GraphQLNonNull(type)),
      args: { ...filters, ...page },
      resolve: (_r, a: Args, c, info) => listObjects(c.scope, model, pageArgs(a), selectionOf(info, model)),
    },
    [`${name}_count`]: {
      type: GraphQLInt,
      description: `How many ${model.verboseNamePlural ?? `${model.verboseName}s`} match the filters (what REST's list shows as \`count\`).`,
      args: filters,
      resolve: (_r, a: Args, c) => countObjects(c.scope, model, a),
    },
    [byIdField(model.label)]: {
      type: new GraphQLNonNull(new GraphQLList(type)),
      description: 'Objects by id, in the order given (null where none is visible): the key the gateway merges types by.',
      args: { ids: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLInt))) } },
      resolve: (_r, a: { ids: number[] }, c, info) => objectsByIds(c.scope, model, a.ids, selectionOf(info, model)) as Promise<(Row | null)[]>,
    },
  };
}

/** A negative or absent limit is the default page, as REST (0 is REST's "as many as allowed"). */
function pageArgs(a: Args): Args {
  const out = { ...a };
  if (typeof out.limit === 'number' && out.limit < 0) delete out.limit;
  if (typeof out.offset === 'number' && out.offset < 0) out.offset = 0;
  return out;
}

/** Every REST filter of the model and each of its lookups (`name`, `name__ic`, ...), as arguments taking one value or a list. */
function filterArgs(ctx: ServiceContext, model: ModelDef): GraphQLFieldConfigArgumentMap {
  const defs = [...cachedFilters(ctx, model, []), ...(model.callerFilters?.(ANONYMOUS) ?? [])];
  const args: GraphQLFieldConfigArgumentMap = {};
  for (const def of defs) {
    for (const arg of [def.name, ...lookupsFor(def).map((l) => `${def.name}__${l}`)]) {
      if (!isGraphqlName(arg) || RESERVED_PARAMS.has(arg) || arg in args) continue;
      args[arg] = { type: new GraphQLList(FilterValueScalar) };
    }
  }
  return args;
}
