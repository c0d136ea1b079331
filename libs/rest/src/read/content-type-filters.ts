import { CONTENT_TYPES, contentTypeById } from '@inventory/refs';
import { excludedBy, type FilterDef, ident, NUMERIC_LOOKUPS, or, sql, type Sql, STRING_LOOKUPS, stringLookup } from '@inventory/filtering';

/**
 * NetBox's filters by content type, for models that name content types
 * (custom fields, export templates, image attachments, journal entries, …).
 * Content types are stored as `app_label.model` labels; ids are the
 * catalogue's.
 */

/** The lookups NetBox adds to a MultiValueNumberFilter on a content type id (`n lte lt gte gt empty`). */
export const CONTENT_TYPE_ID_LOOKUPS = NUMERIC_LOOKUPS;

const COMPARE: Record<string, (id: number, v: number) => boolean> = {
  lt: (id, v) => id < v,
  lte: (id, v) => id <= v,
  gt: (id, v) => id > v,
  gte: (id, v) => id >= v,
};

/**
 * `__empty` of a declared MultiValueNumberFilter: NetBox keeps the filter's
 * class with the `isnull` lookup, so the value is a whole number (the engine
 * rejects anything else: `true` is a 400 there too), non-zero for "no
 * content type". A blank value filters nothing.
 */
function isNull(values: string[]): boolean | undefined {
  const given = values.filter((v) => v !== '');
  if (!given.length) return undefined;
  return Number(given[given.length - 1]) !== 0;
}

/** The labels of the content types the id values select: by id, or (`lt`, `lte`, `gt`, `gte`) by comparing ids, any value (OR). */
function labelsFor(values: string[], lookup: string | null): string[] {
  const ids = values.filter((v) => v !== '').map(Number);
  const cmp = lookup ? COMPARE[lookup] : undefined;
  if (cmp) return CONTENT_TYPES.filter((c) => ids.some((v) => cmp(c.id, v))).map((c) => c.label);
  return ids.map((v) => contentTypeById(v)?.label ?? '');
}

/**
 * `content_type_id` and its lookups: objects whose `content_types` include
 * a content type of one of these ids (NetBox's MultiValueNumberFilter on
 * `content_types__id`): `__n` none of them (Django's exclude on a
 * many-to-many), `__lt`/`__lte`/`__gt`/`__gte` any content type whose id
 * compares so, `__empty` (`content_types__id__isnull`) no content type at all.
 */
export function contentTypesIdFilter(): FilterDef {
  return {
    kind: 'method',
    name: 'content_type_id',
    lookups: CONTENT_TYPE_ID_LOOKUPS,
    valueType: 'integer',
    apply: (values, lookup) => {
      const column = sql`t.content_types`;
      if (lookup === 'empty') {
        const b = isNull(values);
        if (b === undefined) return undefined;
        return b ? sql`COALESCE(cardinality(${column}), 0) = 0` : sql`COALESCE(cardinality(${column}), 0) > 0`;
      }
      if (!values.some((v) => v !== '')) return undefined;
      const match = sql`COALESCE(${column} && ${labelsFor(values, lookup)}::varchar[], FALSE)`;
      return excludedBy(lookup, match);
    },
  };
}

/**
 * `<name>=<content type id>` on one content-type `column` (what is attached
 * to objects of those models): `__n` none of them; with `numeric` (NetBox's
 * MultiValueNumberFilter, e.g. a bookmark's `object_type_id`) also
 * `__lt`/`__lte`/`__gt`/`__gte` by comparing ids and `__empty` (no content type).
 */
export function contentTypeIdFilter(name: string, column: string, opts: { numeric?: boolean } = {}): FilterDef {
  const col = sql`t.${ident(column)}`;
  return {
    kind: 'method',
    name,
    lookups: opts.numeric ? CONTENT_TYPE_ID_LOOKUPS : ['n'],
    valueType: 'integer',
    apply: (values, lookup) => {
      if (lookup === 'empty') {
        const b = isNull(values);
        if (b === undefined) return undefined;
        return b ? sql`${col} IS NULL` : sql`${col} IS NOT NULL`;
      }
      if (opts.numeric && !values.some((v) => v !== '')) return undefined;
      const match = sql`${col} = ANY(${labelsFor(values, lookup)}::text[])`;
      return excludedBy(lookup, sql`COALESCE(${match}, FALSE)`);
    },
  };
}

/** The lookups of a many-to-many content-type filter in NetBox 3.7 (a CharFilter's, less `empty`, which a relation has not). */
export const CONTENT_TYPES_LOOKUPS = STRING_LOOKUPS.filter((l) => l !== 'empty');

/** A negated lookup's positive form (`nic` → `ic`): NetBox's `n…` lookups exclude what the positive one selects. */
const POSITIVE: Record<string, string> = { nic: 'ic', niew: 'iew', nisw: 'isw', nie: 'ie' };

/**
 * `<name>=<app_label>.<model>` on a many-to-many content-type column
 * (`content_types`): objects whose content types include one of those;
 * `__n` none of them. The text lookups match the `app_label.model` labels:
 * `__ic`, `__isw`, `__iew`, `__ie` any content type whose label contains,
 * starts with, ends with or equals (case-insensitively) a value;
 * `__nic`, `__nisw`, `__niew`, `__nie` none does (an exclude on a
 * many-to-many: objects with a matching content type are left out).
 */
export function contentTypesFilter(name: string, column: string): FilterDef {
  const col = sql`t.${ident(column)}`;
  return {
    kind: 'method',
    name,
    lookups: CONTENT_TYPES_LOOKUPS,
    apply: (raw, lookup) => {
      const values = raw.filter((v) => v !== '');
      if (!values.length) return undefined;
      if (lookup === null) return or(values.map((v) => sql`${col} @> ARRAY[${v}]::varchar[]`));
      if (lookup === 'n') return sql`NOT COALESCE(${col} && ${values}::varchar[], FALSE)`;
      const positive = POSITIVE[lookup] ?? lookup;
      const any: Sql = sql`EXISTS (SELECT 1 FROM unnest(${col}) AS ct(label) WHERE ${stringLookup(sql`ct.label`, positive, values)})`;
      return positive === lookup ? any : sql`NOT ${any}`;
    },
  };
}
