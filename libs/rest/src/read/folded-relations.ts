import { sql, raw, ident, join, type Sql } from '@inventory/filtering';
import type { ModelDef, NestedTag, ServiceContext, Row } from '../model';
import { absoluteUrls, projectedModels, projection } from '../projections';
import { TAG_IDS_COLUMN } from './page-columns';

/**
 * A list page's related rows, read by the page's statement instead of one
 * statement per relation after it: a page is one round trip to PostgreSQL.
 * Folded are foreign keys to this service's own models (a tenant's group)
 * and the tags this service projects. Each relation's targets come once per
 * page (not once per row), as a JSON array on the page's first row;
 * `represent` nests them as it nests rows it reads itself.
 */
export interface Fold {
  /** Foreign keys whose target rows the statement reads. */
  relations: string[];
  /** The page's tags, from this service's projection of them. */
  tags: boolean;
}

const NONE: Fold = { relations: [], tags: false };

/** The column of the page's first row holding a folded relation's target rows. */
const columnOf = (name: string) => `__rel_${name}`;
const TAGS_COLUMN = '__rel_tags';

/** What a page of `names` (fieldsFor's, one list per model and mode; `full`: the full form, with tags) folds: computed once per model and mode. */
export function foldFor(ctx: ServiceContext, model: ModelDef, names: readonly string[], full: boolean): Fold {
  let fold = folds.get(names);
  if (!fold) {
    const relations = names.filter((name) => {
      const field = model.fields[name];
      // a virtual key has no column of its own to read the targets by
      return field?.type === 'fk' && !field.pk && !field.virtual && ctx.models.has(field.to);
    });
    const tags = full && model.tags && projectedModels(ctx).has('extras.tag');
    folds.set(names, (fold = relations.length || tags ? { relations, tags } : NONE));
  }
  return fold;
}

/** By field list: fieldsFor keeps one list per model and mode, so a list names its model and mode. */
const folds = new WeakMap<readonly string[], Fold>();

/**
 * The page's statement with its folded relations: the page as it was read
 * (order, limit and offset inside), numbered in its order, and on its first
 * row each relation's distinct targets (`json_agg`, NULL when none).
 */
export function withFold(ctx: ServiceContext, model: ModelDef, page: Sql, fold: Fold): Sql {
  if (fold === NONE) return page;
  const columns = fold.relations.map((name) => {
    const field = model.fields[name];
    const target = ctx.models.get(field.type === 'fk' ? field.to : '')!;
    const fk = ident(`${name}_id`);
    return sql`CASE WHEN __n = 1 THEN (SELECT json_agg(r) FROM ${raw(ctx.db.table(target.table))} r WHERE r.id IN (SELECT ${fk} FROM __page)) END AS ${ident(columnOf(name))}`;
  });
  if (fold.tags) {
    const tagIds = sql`SELECT unnest(${ident(TAG_IDS_COLUMN)}) FROM __page`;
    columns.push(
      sql`CASE WHEN __n = 1 THEN (SELECT json_agg(json_build_object('id', p.id, 'nested', p.nested)) FROM ${projection(ctx, 'extras.tag')} p WHERE p.id IN (${tagIds}) AND NOT p.deleted AND p.nested IS NOT NULL) END AS ${ident(TAGS_COLUMN)}`,
    );
  }
  return sql`WITH __page AS MATERIALIZED (SELECT p.*, row_number() OVER () AS __n FROM (${page}) p) SELECT __page.*, ${join(columns, ', ')} FROM __page ORDER BY __n`;
}

/** A relation's target rows when the page's statement read them (undefined: not folded, read them). */
export function foldedRows(rows: Row[], name: string): Row[] | undefined {
  const carried = rows[0]?.[columnOf(name)];
  if (carried === undefined) return undefined;
  return (carried as Row[] | null) ?? [];
}

/** The page's projected tags by id when its statement read them (undefined: not folded). */
export function foldedTags(rows: Row[], base: string): Map<number, NestedTag> | undefined {
  const carried = rows[0]?.[TAGS_COLUMN] as { id: number; nested: Row }[] | null | undefined;
  if (carried === undefined) return undefined;
  return new Map((carried ?? []).map((t) => [Number(t.id), absoluteUrls(t.nested, base) as unknown as NestedTag]));
}
