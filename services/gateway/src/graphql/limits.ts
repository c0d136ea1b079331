import {
  GraphQLError,
  Kind,
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  isInterfaceType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

/** Objects a list without a `limit` is counted as (its page, or a nested list of unknown length). */
export const UNBOUNDED_LIST_COST = 10;
/** `limit: 0` is REST's "as many as allowed": counted as NetBox's default MAX_PAGE_SIZE. */
const LIMIT_ZERO_COST = 1000;

export interface Limits {
  maxDepth: number;
  maxCost: number;
}

interface Measure {
  depth: number;
  cost: number;
}

/**
 * The depth (nesting of selections) and cost (the objects the answer may
 * hold: each object field counts 1, times the length of every list around
 * it, a list's length being its `limit` or UNBOUNDED_LIST_COST) of the
 * operation that will run, checked before any service is called; errors
 * name the setting.
 */
export function checkLimits(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown>, limits: Limits): GraphQLError[] {
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operations.find((o) => (operationName ? o.name?.value === operationName : true));
  const root = schema.getQueryType();
  if (!operation || !root) return [];
  const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]));
  const m = measure({ schema, fragments, variables }, operation.selectionSet, root, 0);
  const errors: GraphQLError[] = [];
  if (m.depth > limits.maxDepth) errors.push(new GraphQLError(`The query is ${m.depth} levels deep; the limit is ${limits.maxDepth} (GRAPHQL_MAX_DEPTH).`, { extensions: { code: 'DEPTH_LIMIT', depth: m.depth, limit: limits.maxDepth } }));
  if (m.cost > limits.maxCost) {
    errors.push(
      new GraphQLError(`The query may return ${m.cost} objects; the limit is ${limits.maxCost} (GRAPHQL_MAX_COST). Ask for fewer with \`limit\` or fewer nested lists.`, {
        extensions: { code: 'COST_LIMIT', cost: m.cost, limit: limits.maxCost },
      }),
    );
  }
  return errors;
}

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
}

function measure(w: Walk, set: SelectionSetNode, parent: GraphQLNamedType, depth: number, seen: Set<string> = new Set()): Measure {
  let out: Measure = { depth, cost: 0 };
  const fields = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields() : {};
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) {
      const def = fields[sel.name.value];
      if (!def || !sel.selectionSet) continue;
      const list = isListType(getNullableType(def.type));
      const child = measure(w, sel.selectionSet, getNamedType(def.type), depth + 1, seen);
      const times = list ? listLength(w, sel.arguments?.find((a) => a.name.value === 'limit')?.value) : 1;
      out = { depth: Math.max(out.depth, child.depth), cost: out.cost + times * (1 + child.cost) };
      continue;
    }
    // fragments: each branch may apply (a union's members), so each counts; a cycle is refused by validation before this runs
    const fragment = sel.kind === Kind.FRAGMENT_SPREAD ? w.fragments.get(sel.name.value) : sel;
    if (!fragment || (sel.kind === Kind.FRAGMENT_SPREAD && seen.has(sel.name.value))) continue;
    const on = fragment.typeCondition ? (w.schema.getType(fragment.typeCondition.name.value) ?? parent) : parent;
    const inner = measure(w, fragment.selectionSet, on, depth, sel.kind === Kind.FRAGMENT_SPREAD ? new Set([...seen, sel.name.value]) : seen);
    out = { depth: Math.max(out.depth, inner.depth), cost: out.cost + inner.cost };
  }
  return out;
}

function listLength(w: Walk, value: ValueNode | undefined): number {
  let n: unknown = undefined;
  if (value?.kind === Kind.INT) n = Number(value.value);
  if (value?.kind === Kind.VARIABLE) n = w.variables[value.name.value];
  if (typeof n !== 'number' || n < 0) return UNBOUNDED_LIST_COST;
  return n === 0 ? LIMIT_ZERO_COST : n;
}
