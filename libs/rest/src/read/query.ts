import { ValidationError } from '@inventory/core';
import { Sql, sql, raw, ident, join } from '@inventory/filtering';
import { fieldOf, naturalColumn, TAGGED_ITEM_TABLE, type CountDef, type ModelDef, type ServiceContext, type Row, type Queryable } from '../model';
import { projectedId, projectedModels, projection } from '../projections';
import { withFold, type Fold } from './folded-relations';
import { TAG_IDS_COLUMN } from './page-columns';

export { TAG_IDS_COLUMN };

/** Count annotations computed in the same statement as the rows (never per object). */
export function countColumns(ctx: ServiceContext, model: ModelDef): Sql[] {
  const out: Sql[] = [];
  for (const [name, def] of Object.entries(model.counts)) {
    if (def.via) {
      out.push(countThrough(ctx, name, def, def.via));
      continue;
    }
    const target = ctx.models.get(def.model);
    if (!target) {
      // another service's objects, from the projection; a model nobody serves yet counts nothing
      out.push(projectedModels(ctx).has(def.model) ? projectedCount(ctx, model, name, def) : sql`0 AS ${ident(`__count_${name}`)}`);
      continue;
    }
    const counted = target.fields[def.field];
    if (counted?.type === 'm2m') {
      // objects whose many-to-many list names this one (a VDC's interfaces): rows of the link table
      out.push(sql`(SELECT count(*) FROM ${raw(ctx.db.table(counted.through))} c WHERE c.target_id = t.id) AS ${ident(`__count_${name}`)}`);
      continue;
    }
    const fkCol = ident(`${def.field}_id`);
    const extra = def.where ? raw(` AND ${def.where}`) : raw('');
    const table = raw(ctx.db.table(target.table));
    if (def.tree) {
      out.push(
        sql`(SELECT count(*) FROM ${table} c JOIN ${raw(ctx.db.table(model.table))} g ON g.id = c.${fkCol} WHERE g._path @> ARRAY[t.id]::bigint[]${extra}) AS ${ident(`__count_${name}`)}`,
      );
    } else {
      out.push(sql`${whenAny(table, sql`(SELECT count(*) FROM ${table} c WHERE c.${fkCol} = t.id${extra})`)} AS ${ident(`__count_${name}`)}`);
    }
  }
  return out;
}

/**
 * A count of another service's objects (a tenant's `site_count`), from this
 * service's projection of them: kept current by their events, so counting
 * costs no call and can be ordered and filtered on.
 */
function projectedCount(ctx: ServiceContext, model: ModelDef, name: string, def: ModelDef['counts'][string]): Sql {
  const ref = projectedId('c', def.field);
  const table = projection(ctx, def.model);
  if (def.many) {
    // the owner's many-to-many list, as the ids its snapshot holds
    return sql`(SELECT count(*) FROM ${table} c WHERE NOT c.deleted AND c.data->${def.field} @> jsonb_build_array(t.id)) AS ${ident(`__count_${name}`)}`;
  }
  // the extra condition reads the projected row: its stored values are `c.data`
  const extra = def.where ? raw(` AND ${def.where}`) : raw('');
  if (def.tree) {
    return sql`(SELECT count(*) FROM ${table} c JOIN ${raw(ctx.db.table(model.table))} g ON g.id = ${ref} WHERE NOT c.deleted AND g._path @> ARRAY[t.id]::bigint[]${extra}) AS ${ident(`__count_${name}`)}`;
  }
  return sql`${whenAny(table, sql`(SELECT count(*) FROM ${table} c WHERE NOT c.deleted AND ${ref} = t.id${extra})`)} AS ${ident(`__count_${name}`)}`;
}

/**
 * A per-row count that is not run at all while the counted table is empty
 * (a tenant's circuits where nobody uses circuits): the EXISTS is
 * uncorrelated, so it runs once per statement, where the count runs once per
 * row (ten empty counts were a third of the tenants page's execution time).
 */
function whenAny(table: Sql, count: Sql): Sql {
  return sql`CASE WHEN EXISTS (SELECT FROM ${table}) THEN ${count} ELSE 0 END`;
}

/**
 * A count through another object (CountDef.via), each side read from its
 * table or this service's projection of it; a model nobody serves yet counts 0.
 */
function countThrough(ctx: ServiceContext, name: string, def: CountDef, via: { model: string; field: string }): Sql {
  const alias = ident(`__count_${name}`);
  const side = (label: string, as: string, field: string) => {
    const local = ctx.models.get(label);
    if (local) return { from: sql`${raw(ctx.db.table(local.table))} ${raw(as)}`, live: raw('TRUE'), ref: sql`${raw(as)}.${ident(`${field}_id`)}` };
    if (!projectedModels(ctx).has(label)) return null;
    return { from: sql`${projection(ctx, label)} ${raw(as)}`, live: raw(`NOT ${as}.deleted`), ref: projectedId(as, field) };
  };
  const counted = side(def.model, 'c', def.field);
  const through = side(via.model, 'v', via.field);
  if (!counted || !through) return sql`0 AS ${alias}`;
  return sql`(SELECT count(*) FROM ${counted.from} JOIN ${through.from} ON v.id = ${counted.ref}
    WHERE ${counted.live} AND ${through.live} AND ${through.ref} = t.id) AS ${alias}`;
}

/** An ordering term's SQL; why it cannot be served (a 400 names it); or null (unknown, ignored). */
type OrderTerm = Sql | { refused: string } | null;

const refused = (name: string) => ({ refused: `Ordering by ${name} is not supported.` });

/**
 * One `ordering=` term: stored scalars, relations (by the target's own
 * ordering), counts, id, created/last_updated and the tree order. A declared
 * name that cannot be ordered by is refused; an unknown name is null
 * (ignored, as NetBox's OrderingFilter does).
 */
export function orderExpression(ctx: ServiceContext, model: ModelDef, term: string): OrderTerm {
  const desc = term.startsWith('-');
  const name = desc ? term.slice(1) : term;
  const dir = raw(desc ? ' DESC' : ' ASC');
  const nulls = raw(desc ? ' NULLS FIRST' : ' NULLS LAST');
  if (name === 'id' || name === 'pk') return sql`t.id${dir}`;
  // names come from clients: `__proto__` must not find Object.prototype
  const own = model.orderExpressions && Object.prototype.hasOwnProperty.call(model.orderExpressions, name) ? model.orderExpressions[name] : undefined;
  if (own !== undefined) return sql`${raw(own)}${dir}`;
  if (name === '_tree' && model.tree) return sql`t._tree_sort${dir}`;
  if (name === '_depth' && model.tree) return sql`t._depth${dir}`;
  if ((name === 'created' || name === 'last_updated') && model.timestamps) return sql`t.${ident(name)}${dir}${nulls}`;
  if (Object.prototype.hasOwnProperty.call(model.counts, name)) {
    return sql`${ident(`__count_${name}`)}${dir}`;
  }
  if ((name === 'tags' && model.tags) || (name === 'custom_fields' && model.customFields)) return refused(name);
  const field = fieldOf(model, name);
  if (!field) return null;
  if (field.writeOnly || field.virtual || field.orderable === false || field.type === 'm2m' || field.type === 'generic' || field.type === 'json') {
    return refused(name);
  }
  if (field.type === 'fk' && projectedModels(ctx).has(field.to)) {
    // by the target's own ordering, as its owner sorts it (kept in the projection)
    return sql`(SELECT p.sort FROM ${projection(ctx, field.to)} p WHERE p.id = t.${ident(`${name}_id`)})${dir}${nulls}`;
  }
  if (field.type === 'fk') {
    const target = ctx.models.get(field.to);
    const orderBy = target?.ordering.find((o) => !o.startsWith('-') && fieldOf(target, o) && fieldOf(target, o)!.type !== 'fk');
    if (target && orderBy) {
      const column = naturalColumn(orderBy, fieldOf(target, orderBy)) ?? orderBy;
      return sql`(SELECT r.${ident(column)} FROM ${raw(ctx.db.table(target.table))} r WHERE r.id = t.${ident(`${name}_id`)})${dir}${nulls}`;
    }
    return sql`t.${ident(`${name}_id`)}${dir}${nulls}`;
  }
  // naturally ordered fields sort by their key ("site 2" before "site 10")
  return sql`t.${ident(naturalColumn(name, field) ?? name)}${dir}${nulls}`;
}

/** ORDER BY for a request: the asked terms (400 for those that cannot be served), else the model's default; id last. */
export function orderBy(ctx: ServiceContext, model: ModelDef, requested: string | null): Sql {
  const terms = (requested ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const refused: string[] = [];
  let exprs: Sql[] = [];
  for (const term of terms) {
    const e = orderExpression(ctx, model, term);
    if (e instanceof Sql) exprs.push(e);
    else if (e) refused.push(e.refused);
  }
  if (refused.length) throw new ValidationError({ ordering: refused });
  if (exprs.length === 0) exprs = model.ordering.map((t) => orderExpression(ctx, model, t)).filter((e): e is Sql => e instanceof Sql);
  // a stable order across pages
  exprs.push(sql`t.id ASC`);
  return join(exprs, ', ');
}

export interface ListQuery {
  where: Sql;
  order: Sql;
  limit: number | null;
  offset: number;
  /** Relations the page's statement reads too (folded-relations.ts). */
  fold?: Fold;
}

/**
 * The number of rows matching `where`, as a column of the page's statement:
 * an uncorrelated subquery runs once with its own plan (an index-only or
 * sequential count), where `count(*) OVER()` made the page read every
 * matching row in the page's order first (1,000,000 addresses: 1,009 → 60 ms).
 */
export function totalColumn(table: Sql, where: Sql): Sql {
  return sql`(SELECT count(*) FROM ${table} t WHERE ${where}) AS __total`;
}

/** The object's tag ids (of the row `t`): read with it, and the default `tags` criterion of config contexts. */
export function tagIds(ctx: ServiceContext, model: ModelDef): Sql {
  return sql`ARRAY(SELECT g.tag_id FROM ${raw(ctx.db.table(TAGGED_ITEM_TABLE))} g WHERE g.content_type = ${model.label} AND g.object_id = t.id)::bigint[]`;
}

/** What a row is read with: its columns, its counts, and its tag ids (a model with tags). */
function rowSelect(ctx: ServiceContext, model: ModelDef): Sql {
  const extra = countColumns(ctx, model);
  if (model.tags) extra.push(sql`${tagIds(ctx, model)} AS ${ident(TAG_IDS_COLUMN)}`);
  return extra.length ? sql`t.*, ${join(extra, ', ')}` : raw('t.*');
}

/** One statement for the page and its total; a second only when the page is past the end. */
export async function fetchPage(ctx: ServiceContext, model: ModelDef, q: ListQuery, db: Queryable = ctx.db): Promise<{ rows: Row[]; count: number }> {
  const table = raw(ctx.db.table(model.table));
  const select = rowSelect(ctx, model);
  const limit = q.limit === null ? raw('') : sql` LIMIT ${q.limit}`;
  const page = sql`SELECT ${select}, ${totalColumn(table, q.where)} FROM ${table} t WHERE ${q.where} ORDER BY ${q.order}${limit} OFFSET ${q.offset}`;
  const rows = await db.query(q.fold ? withFold(ctx, model, page, q.fold) : page);
  let count: number;
  if (rows.length) count = Number(rows[0].__total);
  else if (q.offset === 0) count = 0;
  else count = Number((await db.query(sql`SELECT count(*) AS n FROM ${table} t WHERE ${q.where}`))[0].n);
  return { rows, count };
}

export async function fetchByIds(ctx: ServiceContext, model: ModelDef, ids: number[], db: Queryable = ctx.db, where: Sql = raw('TRUE')): Promise<Row[]> {
  const table = raw(ctx.db.table(model.table));
  const rows = await db.query(sql`SELECT ${rowSelect(ctx, model)} FROM ${table} t WHERE t.id = ANY(${ids}::bigint[]) AND ${where}`);
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  return ids.map((id) => byId.get(id)).filter((r): r is Row => !!r);
}

