import { and, excludedBy, type FilterDef, FilterValueError, ident, MEMBERSHIP_LOOKUPS, or, raw, type Sql, sql } from '@inventory/filtering';
import { OUTBOX_TABLE } from '@inventory/events';
import { ValidationError } from '@inventory/core';
import {
  customFieldFilters,
  type ChoiceField,
  type CustomFieldDef,
  type FieldDef,
  type ManyField,
  type RelationField,
  TEXT_TYPES,
  type Hop,
  formatAddress,
  formatNetwork,
  networkOf,
  parseNetwork,
  type ModelDef,
  type ServiceContext,
  TAGGED_ITEM_TABLE,
} from '../model';
import { projectedId } from '../projections';
import { projectedContactFilters } from './contact-filters';
import { contentTypesFilter } from './content-type-filters';
import { keyResolver, lookupSource } from './lookup-source';

const col = (name: string): Sql => sql`t.${ident(name)}`;

/**
 * A filter two relations away (a site's `?tenant_group=`): the objects whose
 * target's `via` is one of the given objects of `hop.to` (with descendants
 * for tree hops), through the target's table or this service's projection.
 */
function hopFilter(ctx: ServiceContext, name: string, field: { to: string }, hop: Hop): FilterDef {
  const resolve = keyResolver(ctx, hop.to, hop.key, !!hop.tree);
  return {
    kind: 'method',
    name: hop.name,
    lookups: ['n'],
    valueType: hop.key === 'id' ? 'integer' : 'string',
    apply: async (values, lookup) => {
      const found = await resolve(values);
      const ids: number[] = [];
      for (const v of values) {
        const hit = found.get(v);
        if (!hit) throw new ValidationError({ [lookup ? `${hop.name}__${lookup}` : hop.name]: [`Select a valid choice. ${v} is not one of the available choices.`] });
        ids.push(...hit);
      }
      const src = lookupSource(ctx, field.to);
      if (!src) return raw('FALSE');
      const via = ctx.models.has(field.to) ? ident(`${hop.via}_id`) : projectedId('', hop.via);
      const inner = sql`t.${ident(`${name}_id`)} IN (SELECT id FROM ${src.table} WHERE ${src.live} AND ${via} = ANY(${ids}::bigint[]))`;
      return excludedBy(lookup, sql`COALESCE(${inner}, FALSE)`);
    },
  };
}

/** Filters generated from the declaration, plus the model's own, plus tags and custom fields. */
export function filtersFor(ctx: ServiceContext, model: ModelDef, cfDefs: CustomFieldDef[]): FilterDef[] {
  const defs: FilterDef[] = [{ kind: 'integer', name: 'id', expr: col('id') }];
  for (const [name, field] of Object.entries(model.fields)) {
    if (field.filter === false || field.writeOnly || field.virtual) continue;
    defs.push(...fieldFilters(ctx, name, field));
  }
  if (model.timestamps) {
    defs.push({ kind: 'datetime', name: 'created', expr: col('created') }, { kind: 'datetime', name: 'last_updated', expr: col('last_updated') });
    defs.push(...requestFilters(ctx, model));
  }
  if (model.tags) defs.push(...tagFilters(ctx, model));
  if (model.customFields) defs.push(...customFieldFilters(cfDefs, col('custom_field_data')));
  if (model.search.length) defs.push(searchFilter((pattern) => model.search.map((s) => ilike(col(s), pattern))));
  const extra = [...(model.filters?.(ctx, model) ?? []), ...(model.contacts ? projectedContactFilters(ctx, model) : [])];
  const skip = new Set([...(model.skipFilters ?? []), ...extra.map((d) => d.name)]);
  return [...defs.filter((d) => !skip.has(d.name)), ...extra];
}

/** The filters one field declares by its type (none for a type that has no filter of its own). */
function fieldFilters(ctx: ServiceContext, name: string, field: FieldDef): FilterDef[] {
  if (TEXT_TYPES.has(field.type)) return [{ kind: 'string', name, expr: col(name), iexact: 'iexactFilter' in field ? field.iexactFilter : undefined }];
  switch (field.type) {
    case 'integer':
    case 'bigint':
    case 'decimal':
      return [{ kind: field.type === 'decimal' ? 'decimal' : 'integer', name, expr: col(name) }];
    case 'boolean':
      return [{ kind: 'boolean', name, expr: col(name) }];
    case 'cidr':
    case 'inet':
      return [networkFilter(name, col(name), field.type)];
    case 'date':
    case 'datetime':
      return [{ kind: field.type, name, expr: col(name) }];
    case 'choice':
      return [choiceFilter(name, field)];
    case 'fk':
      return relationFilters(ctx, name, field);
    case 'm2m':
      return linkFilters(ctx, name, field);
    case 'contenttype':
      // NetBox's ContentTypeFilter (`app_label.model`): `n` alone on one content type, the text lookups less `empty` on a many-to-many
      if (!field.many) return [{ kind: 'string', name, expr: col(name), lookups: MEMBERSHIP_LOOKUPS }];
      return [contentTypesFilter(name, name)];
    default:
      return [];
  }
}

/** A choice field: its values (a numeric one also by label); a blank choice, stored '', found by `?<name>=null`. */
function choiceFilter(name: string, field: ChoiceField): FilterDef {
  const numeric = typeof field.choices[0]?.[0] === 'number';
  return {
    kind: 'choice',
    name,
    expr: field.blank ? sql`NULLIF(${col(name)}, '')` : col(name),
    choices: field.choices.map(([v]) => v),
    single: field.singleFilter,
    coerce: numeric ? (v) => (/^\d+$/.test(v) ? Number(v) : field.choices.find(([, l]) => l.toLowerCase() === v.toLowerCase())?.[0]) : (v) => v,
  };
}

/** A foreign key: by id (`<name>_id`), by its key (`<name>`, a slug unless declared), and its hops. */
function relationFilters(ctx: ServiceContext, name: string, field: RelationField): FilterDef[] {
  const column = col(`${name}_id`);
  const tree = !!field.treeFilter;
  const defs: FilterDef[] = [{ kind: 'relation', name: field.idFilter ?? `${name}_id`, expr: column, keyType: 'integer', resolve: keyResolver(ctx, field.to, 'id', tree) }];
  const key = field.filterKey === undefined ? 'slug' : field.filterKey;
  if (key) defs.push({ kind: 'relation', name, expr: column, keyType: 'string', resolve: keyResolver(ctx, field.to, key, tree) });
  for (const hop of field.hops ?? []) defs.push(hopFilter(ctx, name, field, hop));
  return defs;
}

/** A many-to-many list: objects linked to any of the given ids (or keys), `__n` for none of them. */
function linkFilters(ctx: ServiceContext, name: string, field: ManyField): FilterDef[] {
  const through = raw(ctx.db.table(field.through));
  const membership = (ids: number[], negate: boolean) => {
    const exists = sql`EXISTS (SELECT 1 FROM ${through} l WHERE l.owner_id = t.id AND l.target_id = ANY(${ids}::bigint[]))`;
    return negate ? sql`NOT ${exists}` : exists;
  };
  const byKey = (key: string) => async (values: string[], lookup: string | null) => {
    const found = await keyResolver(ctx, field.to, key, false)(values);
    const ids: number[] = [];
    for (const v of values) {
      const hit = found.get(v);
      if (!hit) throw new ValidationError({ [lookup ? `${name}__${lookup}` : name]: [`Select a valid choice. ${v} is not one of the available choices.`] });
      ids.push(...hit);
    }
    return membership(ids, lookup === 'n');
  };
  const defs: FilterDef[] = [{ kind: 'method', name: field.idFilter ?? `${name}_id`, lookups: ['n'], valueType: 'integer', apply: byKey('id') }];
  if (field.filterKey) defs.push({ kind: 'method', name: field.filterName ?? name, lookups: ['n'], apply: byKey(field.filterKey) });
  return defs;
}

/**
 * Exact match on a network column, multi-valued: a prefix (`cidr`) equals a
 * value normalised to its network; an address (`inet`) equals a value given
 * with its mask, or has the host of a bare one (NetBox's `net_in`).
 * Unparsable values are skipped; none parsable matches nothing.
 */
export function networkFilter(name: string, expr: Sql, type: 'cidr' | 'inet'): FilterDef {
  return {
    kind: 'method',
    name,
    apply: (values) => {
      const parsed = values.map((v) => ({ v, n: parseNetwork(v) })).filter((x) => x.n !== null);
      if (!parsed.length) return raw('FALSE');
      if (type === 'cidr') return sql`${expr} = ANY(${parsed.map((x) => formatNetwork(networkOf(x.n!)))}::cidr[])`;
      const masked = parsed.filter((x) => x.v.includes('/')).map((x) => formatNetwork(x.n!));
      const hosts = parsed.filter((x) => !x.v.includes('/')).map((x) => formatAddress(x.n!.version, x.n!.value));
      return or([
        ...(masked.length ? [sql`${expr} = ANY(${masked}::inet[])`] : []),
        // compared as host addresses, not as text: PostgreSQL prints them its own way
        ...(hosts.length ? [sql`HOST(${expr})::inet = ANY(${hosts}::inet[])`] : []),
      ]);
    },
  };
}

/** A UUID as Python's `uuid.UUID` reads it (dashes, braces, `urn:uuid:` optional), canonical lower-case dashed; else a 400 naming the parameter. */
export function parseUuid(value: string): string {
  const hex = value
    .trim()
    .toLowerCase()
    .replace(/^urn:uuid:/, '')
    .replace(/^\{(.*)\}$/, '$1')
    .replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/.test(hex)) throw new FilterValueError('Enter a valid UUID.');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * `created_by_request`, `updated_by_request`, `modified_by_request`: the
 * objects a request created, updated, or either (NetBox reads its change
 * log; each service reads its own outbox, which holds the same records for
 * as long as the relay keeps sent rows). One UUID (the last given); blank
 * filters nothing.
 */
function requestFilters(ctx: ServiceContext, model: ModelDef): FilterDef[] {
  const outbox = raw(ctx.db.table(OUTBOX_TABLE));
  const by = (name: string, events: string[]): FilterDef => ({
    kind: 'method',
    name,
    valueType: 'string',
    description: `UUID of a request (X-Request-ID): objects it ${name === 'modified_by_request' ? 'created or updated' : name.split('_')[0]}`,
    apply: (values) => {
      const given = values[values.length - 1] ?? '';
      if (given.trim() === '') return undefined;
      const id = parseUuid(given);
      return sql`EXISTS (SELECT 1 FROM ${outbox} o WHERE o.model = ${model.label} AND o.object_id = t.id
        AND o.request_id = ANY(${[id, given.trim()]}::text[]) AND o.event = ANY(${events}::text[]))`;
    },
  });
  return [by('created_by_request', ['created']), by('updated_by_request', ['updated']), by('modified_by_request', ['created', 'updated'])];
}

/** `tag` (AND of slugs) and `tag__n` (none of them). */
function tagFilters(ctx: ServiceContext, model: ModelDef): FilterDef[] {
  const tagged = raw(ctx.db.table(TAGGED_ITEM_TABLE));
  return [
    {
      kind: 'method',
      name: 'tag',
      lookups: ['n'],
      apply: async (values, lookup) => {
        const slugs = values.filter((v) => v !== 'null');
        const ids = await ctx.extras.tagIdsBySlug(slugs);
        const unknown = slugs.find((s) => !ids.has(s));
        if (unknown !== undefined) {
          throw new ValidationError({ [lookup ? `tag__${lookup}` : 'tag']: [`Select a valid choice. ${unknown} is not one of the available choices.`] });
        }
        const has = (tagIds: number[]) =>
          sql`EXISTS (SELECT 1 FROM ${tagged} ti WHERE ti.content_type = ${model.label} AND ti.object_id = t.id AND ti.tag_id = ANY(${tagIds}::bigint[]))`;
        if (lookup === 'n') return slugs.length ? sql`NOT ${has(slugs.map((s) => ids.get(s)!))}` : undefined;
        const parts = slugs.map((s) => has([ids.get(s)!]));
        if (values.includes('null')) {
          parts.push(sql`NOT EXISTS (SELECT 1 FROM ${tagged} ti WHERE ti.content_type = ${model.label} AND ti.object_id = t.id)`);
        }
        return and(parts);
      },
    },
  ];
}


const filterCache = new WeakMap<ServiceContext, WeakMap<ModelDef, { cf: CustomFieldDef[]; defs: FilterDef[] }>>();

/** The filters of a model, rebuilt only when its custom field definitions change (a new array from extras). */
export function cachedFilters(ctx: ServiceContext, model: ModelDef, cfDefs: CustomFieldDef[]): FilterDef[] {
  let byModel = filterCache.get(ctx);
  if (!byModel) filterCache.set(ctx, (byModel = new WeakMap()));
  const hit = byModel.get(model);
  if (hit && hit.cf === cfDefs) return hit.defs;
  const defs = filtersFor(ctx, model, cfDefs);
  byModel.set(model, { cf: cfDefs, defs });
  return defs;
}

/** A LIKE pattern's text with its wildcards and escape character escaped. */
export const likeEscaped = (text: string): string => text.replace(/[\\%_]/g, (m) => `\\${m}`);

/**
 * NetBox's `q`: the last value, trimmed, matched case-insensitively as a
 * substring by any of the expressions `parts` builds from its LIKE pattern
 * (`%text%`, wildcards escaped; `escaped` is the value itself, escaped, for a
 * starts-with; `text` the value as given, to parse: a number, a network);
 * a blank `q` filters nothing.
 */
export function searchFilter(parts: (pattern: string, escaped: string, text: string) => Sql[]): FilterDef {
  return {
    kind: 'method',
    name: 'q',
    apply: (values) => {
      const text = values[values.length - 1]?.trim();
      if (!text) return undefined;
      const escaped = likeEscaped(text);
      return or(parts(`%${escaped}%`, escaped, text));
    },
  };
}

/** `<expr> ILIKE <pattern>` over the expression's text. */
export const ilike = (expr: Sql, pattern: string): Sql => sql`${expr}::text ILIKE ${pattern}`;
