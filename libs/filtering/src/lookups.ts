import { type Sql, sql, raw, and, or, likeEscape } from './sql';

/** Lookup suffixes generated per filter kind (NetBox 3.7, dcim-circuits.md §0.7). */
export const STRING_LOOKUPS = ['n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie', 'empty'] as const;
export const NUMERIC_LOOKUPS = ['n', 'lt', 'lte', 'gt', 'gte', 'empty'] as const;
export const MEMBERSHIP_LOOKUPS = ['n'] as const;

/** `expr = ANY(values)`, where the literal `null` selects NULL. */
export function inList(expr: Sql, values: unknown[], includeNull: boolean, cast = ''): Sql {
  const parts: Sql[] = [];
  if (values.length) parts.push(sql`${expr} = ANY(${values}${raw(cast)})`);
  if (includeNull) parts.push(sql`${expr} IS NULL`);
  return or(parts);
}

/** Django's exclude(): NULL rows are kept unless `null` itself is excluded. */
export function notInList(expr: Sql, values: unknown[], excludeNull: boolean, cast = ''): Sql {
  const parts: Sql[] = [];
  if (values.length) parts.push(sql`(${expr} IS NULL OR NOT (${expr} = ANY(${values}${raw(cast)})))`);
  if (excludeNull) parts.push(sql`${expr} IS NOT NULL`);
  return and(parts);
}

function likeAny(expr: Sql, patterns: string[]): Sql {
  return sql`${expr} ILIKE ANY(${patterns}::text[])`;
}

/** Text lookups; values already split per repetition (OR-ed). */
export function stringLookup(expr: Sql, lookup: string, values: string[]): Sql {
  const esc = values.map(likeEscape);
  switch (lookup) {
    case 'ic':
      return likeAny(expr, esc.map((v) => `%${v}%`));
    case 'nic':
      return sql`NOT COALESCE(${likeAny(expr, esc.map((v) => `%${v}%`))}, FALSE)`;
    case 'isw':
      return likeAny(expr, esc.map((v) => `${v}%`));
    case 'nisw':
      return sql`NOT COALESCE(${likeAny(expr, esc.map((v) => `${v}%`))}, FALSE)`;
    case 'iew':
      return likeAny(expr, esc.map((v) => `%${v}`));
    case 'niew':
      return sql`NOT COALESCE(${likeAny(expr, esc.map((v) => `%${v}`))}, FALSE)`;
    case 'ie':
      return likeAny(expr, esc);
    case 'nie':
      return sql`NOT COALESCE(${likeAny(expr, esc)}, FALSE)`;
    default:
      throw new Error(`unknown string lookup ${lookup}`);
  }
}

export function emptyLookup(expr: Sql, isEmpty: boolean, text: boolean): Sql {
  if (text) return isEmpty ? sql`(${expr} IS NULL OR ${expr} = '')` : sql`(${expr} IS NOT NULL AND ${expr} <> '')`;
  return isEmpty ? sql`${expr} IS NULL` : sql`${expr} IS NOT NULL`;
}

const COMPARATORS: Record<string, string> = { lt: '<', lte: '<=', gt: '>', gte: '>=' };

export function compareLookup(expr: Sql, lookup: string, values: unknown[], cast = ''): Sql {
  const op = COMPARATORS[lookup];
  if (!op) throw new Error(`unknown comparison ${lookup}`);
  return or(values.map((v) => sql`${expr} ${raw(op)} ${v}${raw(cast)}`));
}
