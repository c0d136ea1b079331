import { ValidationError, checkQueryText } from '@inventory/core';
import { type Sql, sql, and, or } from './sql';
import {
  STRING_LOOKUPS,
  NUMERIC_LOOKUPS,
  inList,
  notInList,
  stringLookup,
  emptyLookup,
  compareLookup,
} from './lookups';
import { FilterValueError, parseBoolean, parseDate, parseDateTime, parseInteger, parseNumber } from './values';

/** Maps query values to primary keys; a value missing from the map is unknown (400). */
export type Resolver = (values: string[]) => Promise<Map<string, number[]>>;

interface Common {
  name: string;
  /** Shown in OpenAPI. */
  description?: string;
}

export type FilterDef =
  /** `lookups`: false for none, a list for those of STRING_LOOKUPS the filter has (NetBox's content-type filters: `n` alone). */
  | (Common & { kind: 'string'; expr: Sql; lookups?: boolean | readonly string[]; iexact?: boolean })
  | (Common & { kind: 'integer' | 'decimal' | 'date' | 'datetime'; expr: Sql; lookups?: boolean })
  | (Common & { kind: 'boolean'; expr: Sql })
  | (Common & { kind: 'choice'; expr: Sql; choices: readonly (string | number)[]; coerce?: (v: string) => string | number | undefined; single?: boolean })
  | (Common & { kind: 'relation'; expr: Sql; resolve: Resolver; keyType: 'integer' | 'string'; nullable?: boolean })
  | (Common & {
      kind: 'method';
      /** Suffixes this filter accepts besides the base name. */
      lookups?: readonly string[];
      valueType?: 'string' | 'integer' | 'boolean';
      apply: (values: string[], lookup: string | null) => Sql | undefined | Promise<Sql | undefined>;
    });

/** Parameters that are never filters. */
export const RESERVED_PARAMS = new Set(['limit', 'offset', 'brief', 'exclude', 'ordering', 'format']);

/** Lookup suffixes each kind supports. */
export function lookupsFor(def: FilterDef): readonly string[] {
  switch (def.kind) {
    case 'string':
      if (Array.isArray(def.lookups)) return def.lookups;
      return def.lookups === false ? [] : STRING_LOOKUPS;
    case 'integer':
    case 'decimal':
    case 'date':
    case 'datetime':
      return def.lookups === false ? [] : NUMERIC_LOOKUPS;
    case 'choice':
    case 'relation':
      return ['n'];
    case 'boolean':
      return [];
    case 'method':
      return def.lookups ?? [];
  }
}

export interface FilterResult {
  where: Sql;
  /** Parameters that are not filters (reported in X-Ignored-Parameters). */
  ignored: string[];
}

export interface FilterOptions {
  strict?: boolean;
  /** Parameters the caller handles itself (e.g. `q` when it is not a filter def). */
  extraReserved?: Iterable<string>;
}

/** Splits `name__lookup` against the known filters. */
function locate(param: string, defs: Map<string, FilterDef>): { def: FilterDef; lookup: string | null } | { unknownLookup: string; def: FilterDef } | null {
  const exact = defs.get(param);
  if (exact) return { def: exact, lookup: null };
  const at = param.lastIndexOf('__');
  if (at <= 0) return null;
  const def = defs.get(param.slice(0, at));
  if (!def) return null;
  const lookup = param.slice(at + 2);
  return lookupsFor(def).includes(lookup) ? { def, lookup } : { unknownLookup: lookup, def };
}

/**
 * Turns the query string into one SQL condition. Repeated values of one
 * parameter are OR-ed (except where a filter says otherwise, like `tag`);
 * different parameters are AND-ed. Invalid values throw a ValidationError
 * keyed by the parameter.
 */
export async function buildFilter(defs: FilterDef[], params: URLSearchParams, opts: FilterOptions = {}): Promise<FilterResult> {
  checkQueryText(params);
  const byName = new Map(defs.map((d) => [d.name, d]));
  const reserved = new Set([...RESERVED_PARAMS, ...(opts.extraReserved ?? [])]);
  const conditions: Sql[] = [];
  const errors: Record<string, string[]> = {};
  const ignored: string[] = [];
  const seen = new Set<string>();
  for (const param of params.keys()) {
    if (seen.has(param)) continue;
    seen.add(param);
    if (reserved.has(param)) continue;
    const values = params.getAll(param);
    const found = locate(param, byName);
    if (!found) {
      ignored.push(param);
      continue;
    }
    if ('unknownLookup' in found) {
      errors[param] = [`Unknown lookup "${found.unknownLookup}" for filter "${found.def.name}".`];
      continue;
    }
    try {
      const cond = await condition(found.def, found.lookup, values);
      if (cond) conditions.push(cond);
    } catch (err) {
      if (err instanceof FilterValueError) errors[param] = [err.message];
      else if (err instanceof ValidationError && !Array.isArray(err.errors)) {
        errors[param] = Object.values(err.errors).flat() as string[];
      } else throw err;
    }
  }
  if (opts.strict && ignored.length) {
    for (const p of ignored) errors[p] = ['Unknown filter parameter.'];
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return { where: and(conditions), ignored };
}

function splitNull(values: string[]): { values: string[]; hasNull: boolean } {
  const rest = values.filter((v) => v !== 'null');
  return { values: rest, hasNull: rest.length !== values.length };
}

/** NetBox's MultiValue*Filter fields drop blank values (`?id=` or `?name=` filters nothing). */
function nonBlank(values: string[]): string[] {
  return values.filter((v) => v !== '');
}

function invalidChoice(value: string): FilterValueError {
  return new FilterValueError(`Select a valid choice. ${value} is not one of the available choices.`);
}

async function condition(def: FilterDef, lookup: string | null, raw: string[]): Promise<Sql | undefined> {
  switch (def.kind) {
    case 'string': {
      if (lookup === 'empty') {
        const b = parseBoolean(raw[raw.length - 1]);
        return b === undefined ? undefined : emptyLookup(def.expr, b, true);
      }
      const given = nonBlank(raw);
      if (!given.length) return undefined;
      const { values, hasNull } = splitNull(given);
      if (lookup === null) {
        if (def.iexact) return or([...(values.length ? [stringLookup(def.expr, 'ie', values)] : []), ...(hasNull ? [sql`${def.expr} IS NULL`] : [])]);
        return inList(def.expr, values, hasNull, '::text[]');
      }
      if (lookup === 'n') return notInList(def.expr, values, hasNull, '::text[]');
      return stringLookup(def.expr, lookup, given);
    }
    case 'integer':
    case 'decimal':
    case 'date':
    case 'datetime': {
      if (lookup === 'empty') {
        const b = parseBoolean(raw[raw.length - 1]);
        return b === undefined ? undefined : emptyLookup(def.expr, b, false);
      }
      const parse: (v: string) => number | string = { integer: parseInteger, decimal: parseNumber, date: parseDate, datetime: parseDateTime }[def.kind];
      const cast = { integer: '::bigint', decimal: '::numeric', date: '::date', datetime: '::timestamptz' }[def.kind];
      const given = nonBlank(raw);
      if (!given.length) return undefined;
      const { values: rest, hasNull } = splitNull(given);
      const values = rest.map((v) => parse(v));
      if (lookup === null) return inList(def.expr, values, hasNull, `${cast}[]`);
      if (lookup === 'n') return notInList(def.expr, values, hasNull, `${cast}[]`);
      return compareLookup(def.expr, lookup, values, cast);
    }
    case 'boolean': {
      const b = parseBoolean(raw[raw.length - 1]);
      return b === undefined ? undefined : sql`${def.expr} = ${b}`;
    }
    case 'choice': {
      // A single-value ChoiceFilter skips an empty value (multi-value ones reject it as a choice).
      if (def.single && raw[raw.length - 1] === '') return undefined;
      const { values: rest, hasNull } = splitNull(def.single ? raw.slice(-1) : raw);
      const values = rest.map((v) => {
        const c = def.coerce ? def.coerce(v) : v;
        if (c === undefined || !def.choices.includes(c)) throw invalidChoice(v);
        return c;
      });
      const cast = typeof def.choices[0] === 'number' ? '::int[]' : '::text[]';
      return lookup === 'n' ? notInList(def.expr, values, hasNull, cast) : inList(def.expr, values, hasNull, cast);
    }
    case 'relation': {
      const { values, hasNull } = splitNull(raw);
      if (def.keyType === 'integer') {
        for (const v of values) {
          if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw invalidChoice(v);
        }
      }
      const found = values.length ? await def.resolve(values) : new Map<string, number[]>();
      const ids: number[] = [];
      for (const v of values) {
        const hit = found.get(v);
        if (!hit) throw invalidChoice(v);
        ids.push(...hit);
      }
      return lookup === 'n' ? notInList(def.expr, ids, hasNull, '::bigint[]') : inList(def.expr, ids, hasNull, '::bigint[]');
    }
    case 'method': {
      if (def.valueType === 'integer') raw.forEach(parseInteger);
      return def.apply(raw, lookup);
    }
  }
}
