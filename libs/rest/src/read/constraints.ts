import { type Sql, sql, raw, ident, and, or, likeEscape } from '@inventory/filtering';
import { fieldOf, type ModelDef, type ServiceContext } from '../model';
import { projectedModels, projection } from '../projections';

const LOOKUPS = new Set(['exact', 'iexact', 'in', 'gt', 'gte', 'lt', 'lte', 'isnull', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith', 'n']);

/**
 * Turns an ObjectPermission constraint set (Django-style lookups such as
 * `{"site__name": "Site 1", "status__in": ["active"]}`) into SQL over alias `t`.
 * Unknown keys match nothing, so a bad constraint never widens access.
 */
export function constraintSql(ctx: ServiceContext, model: ModelDef, sets: Record<string, unknown>[] | null): Sql {
  if (sets === null) return raw('TRUE');
  return or(sets.map((set) => and(Object.entries(set).map(([key, value]) => lookupSql(ctx, model, 't', key.split('__'), value)))));
}

function lookupSql(ctx: ServiceContext, model: ModelDef, alias: string, parts: string[], value: unknown): Sql {
  let lookup = 'exact';
  if (parts.length > 1 && LOOKUPS.has(parts[parts.length - 1])) lookup = parts.pop()!;
  const [head, ...rest] = parts;
  const a = raw(alias);
  if (head === 'id' || head === 'pk') return compare(sql`${a}.id`, lookup, value);
  const field = fieldOf(model, head) ?? (head.endsWith('_id') ? fieldOf(model, head.slice(0, -3)) : undefined);
  if (!field) return raw('FALSE');
  if (field.type === 'fk') {
    const column = sql`${a}.${ident(`${head.replace(/_id$/, '')}_id`)}`;
    if (rest.length === 0 || (rest.length === 1 && (rest[0] === 'id' || rest[0] === 'pk'))) return compare(column, lookup, value);
    const target = ctx.models.get(field.to);
    if (!target) return projectedLookup(ctx, field.to, column, rest, lookup, value);
    const sub = `${alias}_${head}`;
    const inner = lookupSql(ctx, target, sub, [...rest, ...(lookup === 'exact' ? [] : [lookup])], value);
    return sql`${column} IN (SELECT ${raw(sub)}.id FROM ${raw(ctx.db.table(target.table))} ${raw(sub)} WHERE ${inner})`;
  }
  if (field.type === 'm2m' || field.type === 'generic' || rest.length) return raw('FALSE');
  return compare(sql`${a}.${ident(head)}`, lookup, value);
}

/**
 * A lookup through a reference to another service's model
 * (`{"tenant__slug": "acme"}`): on this service's projection of the target,
 * by the stored values of the owner's snapshot (one relation deep).
 */
function projectedLookup(ctx: ServiceContext, label: string, column: Sql, rest: string[], lookup: string, value: unknown): Sql {
  if (!projectedModels(ctx).has(label) || rest.length !== 1) return raw('FALSE');
  const key = rest[0];
  const expr = key === 'id' || key === 'pk' ? raw('p.id') : sql`(p.data->>${key})`;
  return sql`${column} IN (SELECT p.id FROM ${projection(ctx, label)} p WHERE NOT p.deleted AND ${compare(expr, lookup, value)})`;
}

function compare(expr: Sql, lookup: string, value: unknown): Sql {
  const text = (v: unknown) => likeEscape(String(v));
  switch (lookup) {
    case 'exact':
      return value === null ? sql`${expr} IS NULL` : sql`${expr}::text = ${String(value)}`;
    case 'n':
      return value === null ? sql`${expr} IS NOT NULL` : sql`${expr}::text <> ${String(value)}`;
    case 'iexact':
      return sql`${expr}::text ILIKE ${text(value)}`;
    case 'in':
      return Array.isArray(value) ? sql`${expr}::text = ANY(${value.map(String)}::text[])` : raw('FALSE');
    case 'isnull':
      return value ? sql`${expr} IS NULL` : sql`${expr} IS NOT NULL`;
    case 'gt':
      return sql`${expr} > ${value}`;
    case 'gte':
      return sql`${expr} >= ${value}`;
    case 'lt':
      return sql`${expr} < ${value}`;
    case 'lte':
      return sql`${expr} <= ${value}`;
    case 'contains':
      return sql`${expr}::text LIKE ${`%${text(value)}%`}`;
    case 'icontains':
      return sql`${expr}::text ILIKE ${`%${text(value)}%`}`;
    case 'startswith':
      return sql`${expr}::text LIKE ${`${text(value)}%`}`;
    case 'istartswith':
      return sql`${expr}::text ILIKE ${`${text(value)}%`}`;
    case 'endswith':
      return sql`${expr}::text LIKE ${`%${text(value)}`}`;
    case 'iendswith':
      return sql`${expr}::text ILIKE ${`%${text(value)}`}`;
    default:
      return raw('FALSE');
  }
}
