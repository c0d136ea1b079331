import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import type { ModelDef } from '../model';
import type { FieldSelection } from '../read/field-selection';

/**
 * The keys of the REST representation a level of a query asks for, as REST's
 * `fields=` would name them: the serializer then computes only those
 * (relations, tags, custom fields), as for `?fields=`. Always `id` (the
 * key every nested level and the gateway's merging read); a generic
 * relation brings its type column. Fragments count whatever type they are
 * on: a few keys more, never one less.
 */
export function selectionOf(info: GraphQLResolveInfo, model: ModelDef): FieldSelection {
  const include = new Set(['id']);
  const visit = (set: SelectionSetNode | undefined, seen: Set<string>) => {
    for (const sel of set?.selections ?? []) {
      if (sel.kind === Kind.FIELD) include.add(sel.name.value);
      else if (sel.kind === Kind.INLINE_FRAGMENT) visit(sel.selectionSet, seen);
      else if (!seen.has(sel.name.value)) visit(info.fragments[sel.name.value]?.selectionSet, new Set([...seen, sel.name.value]));
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet, new Set());
  for (const [name, field] of Object.entries(model.fields)) if (field.type === 'generic' && include.has(name)) include.add(field.typeField);
  return { include, nested: new Map(), omit: new Set() };
}

/** A selection's identity, so that one batch holds the reads of one selection. */
export const selectionKey = (s: FieldSelection): string => [...(s.include ?? [])].sort().join(',');

/**
 * The selection of a field and its key, computed once per field of the
 * query: graphql-js hands every object of a list the same `fieldNodes`
 * array, and a level of 4,000 interfaces would otherwise walk the same
 * selection set (and sort its keys) 4,000 times.
 */
const memo = new WeakMap<readonly FieldNode[], Map<string, { select: FieldSelection; key: string }>>();

export function selected(info: GraphQLResolveInfo, model: ModelDef): { select: FieldSelection; key: string } {
  let byModel = memo.get(info.fieldNodes);
  if (!byModel) memo.set(info.fieldNodes, (byModel = new Map()));
  let found = byModel.get(model.label);
  if (!found) {
    const select = selectionOf(info, model);
    byModel.set(model.label, (found = { select, key: selectionKey(select) }));
  }
  return found;
}
