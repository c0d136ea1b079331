import { type Sql, sql, raw, ident, join, quoteIdent } from '@inventory/filtering';
import {
  type Queryable,
  CONFIG_CONTEXT_CRITERIA,
  type ConfigContextCriterion,
  type ModelDef,
  type ServiceContext,
  type Row,
} from '../model';
import { projectedModels, projection } from '../projections';
import { tagIds } from './query';

/**
 * Config contexts on the objects that have them (devices, virtual machines):
 * `config_context` is every active config context (extras, projected into
 * the object's service) whose criteria all match the object, deep-merged in
 * order of weight then name, with the object's `local_context_data` merged
 * on top. It is computed in SQL, one statement per page whatever its size
 * (docs/decisions/013-config-context-merge.md).
 */

/** The model of config contexts (extras), projected into every service whose models have one. */
export const CONFIG_CONTEXT_LABEL = 'extras.configcontext';

/** The key of the computed value in the representation. */
export const CONFIG_CONTEXT_KEY = 'config_context';

/* ---- SQL helpers for declarations ---- */

/** One id (possibly null) as the id list a criterion wants: `{}` for null. */
export function ids(id: Sql): Sql {
  return sql`array_remove(ARRAY[(${id})::bigint], NULL)`;
}

/** The table of `label` in this service: its own, or its projection (`data` holds the owner's snapshot). */
function source(ctx: ServiceContext, label: string): { table: Sql; local: boolean } {
  const local = ctx.models.get(label);
  if (local) return { table: raw(ctx.db.table(local.table)), local: true };
  if (!projectedModels(ctx).has(label)) throw new Error(`config context criteria read ${label}, which ${ctx.name} neither serves nor projects (add it to configContext.reads)`);
  return { table: projection(ctx, label), local: false };
}

/** The id a related object's own relation holds: `relatedId(ctx, 'dcim.site', sql\`t.site_id\`, 'region')` is the site's region. */
export function relatedId(ctx: ServiceContext, label: string, id: Sql, field: string): Sql {
  const s = source(ctx, label);
  return s.local
    ? sql`(SELECT x.${ident(`${field}_id`)} FROM ${s.table} x WHERE x.id = (${id}))`
    : sql`(SELECT (x.data->>${field})::bigint FROM ${s.table} x WHERE x.id = (${id}) AND NOT x.deleted)`;
}

/** A tree node and all its ancestors (`{}` for null): a tree criterion (regions, site groups, locations, tenant groups). */
export function treeIds(ctx: ServiceContext, label: string, id: Sql): Sql {
  const s = source(ctx, label);
  return s.local
    ? sql`COALESCE((SELECT x._path FROM ${s.table} x WHERE x.id = (${id})), '{}'::bigint[])`
    : sql`COALESCE((SELECT x.path FROM ${s.table} x WHERE x.id = (${id}) AND NOT x.deleted), '{}'::bigint[])`;
}

/* ---- the merge, in each service's schema ---- */

const MERGE = 'config_context_merge';
const AGG = 'config_context_agg';
const IDS = 'config_context_ids';

/**
 * NetBox's deepmerge (utilities.utils.deepmerge) as a PL/pgSQL function, an
 * aggregate over it, and the id list of a projected criterion: created at
 * start, idempotently, in the service's schema (like projections).
 */
export function configContextStatements(schema: string): string[] {
  const s = quoteIdent(schema);
  return [
    `CREATE OR REPLACE FUNCTION ${s}.${MERGE}(a jsonb, b jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
      DECLARE
        out jsonb;
        k text;
        v jsonb;
      BEGIN
        IF b IS NULL THEN RETURN a; END IF;
        IF a IS NULL OR jsonb_typeof(a) <> 'object' OR jsonb_typeof(b) <> 'object' THEN RETURN b; END IF;
        out := a;
        FOR k, v IN SELECT e.key, e.value FROM jsonb_each(b) e LOOP
          -- a dict over a dict merges; anything else (an empty dict too, as NetBox's 'val and isinstance(val, dict)') replaces
          IF jsonb_typeof(out->k) = 'object' AND jsonb_typeof(v) = 'object' AND v <> '{}'::jsonb THEN
            out := jsonb_set(out, ARRAY[k], ${s}.${MERGE}(out->k, v));
          ELSE
            out := jsonb_set(out, ARRAY[k], v);
          END IF;
        END LOOP;
        RETURN out;
      END
    $$`,
    `CREATE OR REPLACE AGGREGATE ${s}.${AGG}(jsonb) (SFUNC = ${s}.${MERGE}, STYPE = jsonb, INITCOND = '{}')`,
    `CREATE OR REPLACE FUNCTION ${s}.${IDS}(list jsonb) RETURNS bigint[] LANGUAGE sql IMMUTABLE AS $$
      SELECT COALESCE(ARRAY(SELECT e::bigint FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(list) = 'array' THEN list ELSE '[]'::jsonb END) e), '{}'::bigint[])
    $$`,
  ];
}

/** Whether any model of the service shows a config context. */
export function hasConfigContexts(models: Iterable<ModelDef>): boolean {
  for (const m of models) if (m.configContext) return true;
  return false;
}

/** Creates the merge function and aggregate (one replica at a time: CREATE OR REPLACE races with itself). */
export async function ensureConfigContextFunctions(ctx: ServiceContext): Promise<void> {
  if (!hasConfigContexts(ctx.models.values())) return;
  await ctx.db.transaction(async (tx) => {
    await tx.query(sql`SELECT pg_advisory_xact_lock(hashtext(${`${ctx.name}.config_context`}))`);
    for (const statement of configContextStatements(ctx.name)) await tx.query(sql`${raw(statement)}`);
  });
}

/* ---- rendering ---- */

/** The local-data field of a model with a config context. */
export function localContextField(model: ModelDef): string {
  return model.configContext?.local ?? 'local_context_data';
}

/** The criteria a model's rows are matched on: the declared ones, and its tags unless named. */
function criteriaOf(ctx: ServiceContext, model: ModelDef): [ConfigContextCriterion, Sql][] {
  const declared = model.configContext!.criteria(ctx);
  if (model.tags && !declared.tags) declared.tags = tagIds(ctx, model);
  return CONFIG_CONTEXT_CRITERIA.filter((c) => declared[c]).map((c) => [c, declared[c]!]);
}

/**
 * The statement that renders the config context of the rows with the given
 * ids: one for the page. Contexts are read once (materialized), each row
 * takes the merge of those whose every criterion matches.
 */
export function configContextQuery(ctx: ServiceContext, model: ModelDef, rowIds: number[]): Sql {
  const fn = (name: string) => raw(`${quoteIdent(ctx.name)}.${quoteIdent(name)}`);
  const criteria = criteriaOf(ctx, model);
  const local = localContextField(model);
  const rowColumns = criteria.map(([, expr], i) => sql`${expr} AS ${ident(`c${i}`)}`);
  const contextColumns = criteria.map(([c]) => sql`${fn(IDS)}(p.data->${c}) AS ${ident(c)}`);
  const matches = criteria.map(([c], i) => sql` AND (cardinality(c.${ident(c)}) = 0 OR c.${ident(c)} && k.${ident(`c${i}`)})`);
  const keys = criteria.map((_, i) => ident(`c${i}`));
  const sameKey = criteria.map((_, i) => sql` AND k.${ident(`c${i}`)} = r.${ident(`c${i}`)}`);
  // each row's criteria are computed once (materialized): inlined, they would run again for every context compared;
  // rows with the same criteria (most of a page: same site, role, platform, tags) are matched once (k),
  // and rows that match the same contexts share one merge (g)
  return sql`
    WITH r AS MATERIALIZED (
      SELECT t.id, t.${ident(local)} AS local${rowColumns.length ? sql`, ${join(rowColumns, ', ')}` : raw('')}
        FROM ${raw(ctx.db.table(model.table))} t WHERE t.id = ANY(${rowIds}::bigint[])
    ), c AS MATERIALIZED (
      SELECT p.id AS cid, p.data->'data' AS data, COALESCE((p.data->>'weight')::int, 1000) AS weight, COALESCE(p.data->>'name', '') AS name
             ${contextColumns.length ? sql`, ${join(contextColumns, ', ')}` : raw('')}
        FROM ${projection(ctx, CONFIG_CONTEXT_LABEL)} p
       WHERE NOT p.deleted AND COALESCE((p.data->>'is_active')::boolean, TRUE) AND jsonb_typeof(p.data->'data') = 'object'
    ), k AS MATERIALIZED (
      SELECT k.*, ARRAY(SELECT c.cid FROM c WHERE TRUE${join(matches, '')} ORDER BY c.weight, c.name, c.cid) AS ids
        FROM (SELECT DISTINCT ${keys.length ? join(keys, ', ') : raw('1 AS one')} FROM r) k
    ), m AS (
      SELECT r.id, r.local, k.ids FROM r JOIN k ON TRUE${join(sameKey, '')}
    ), g AS MATERIALIZED (
      SELECT s.ids, (SELECT ${fn(AGG)}(c.data ORDER BY u.n) FROM unnest(s.ids) WITH ORDINALITY AS u(cid, n) JOIN c ON c.cid = u.cid) AS merged
        FROM (SELECT DISTINCT ids FROM k) s
    )
    SELECT m.id, CASE WHEN jsonb_typeof(m.local) = 'object' THEN ${fn(MERGE)}(g.merged, m.local) ELSE g.merged END AS config_context
      FROM m JOIN g ON g.ids = m.ids`;
}

/** The rendered config contexts of a page of rows, by id: one statement. */
export async function configContexts(ctx: ServiceContext, model: ModelDef, rows: Row[], q: Queryable = ctx.db): Promise<Map<number, Row>> {
  if (!rows.length || !model.configContext) return new Map();
  const found = await q.query(configContextQuery(ctx, model, rows.map((r) => Number(r.id))));
  return new Map(found.map((r) => [Number(r.id), (r.config_context as Row | null) ?? {}]));
}

/**
 * `exclude=config_context` (devices and virtual machines): NetBox tests the
 * parameter with a substring test, so `exclude=foo,config_context` works too.
 */
export function excludesConfigContext(params: URLSearchParams): boolean {
  return params.getAll('exclude').some((v) => v.includes(CONFIG_CONTEXT_KEY));
}

/** Places `config_context` after its key (`after`, else just before the local data), keeping every other key's order. */
export function placeConfigContext(model: ModelDef, rep: Row, value: Row): Row {
  const def = model.configContext!;
  const keys = Object.keys(rep);
  let at: number;
  if (def.after && keys.includes(def.after)) at = keys.indexOf(def.after) + 1;
  else if (keys.includes(localContextField(model))) at = keys.indexOf(localContextField(model));
  else at = keys.length;
  const out: Row = {};
  keys.slice(0, at).forEach((k) => (out[k] = rep[k]));
  out[CONFIG_CONTEXT_KEY] = value;
  keys.slice(at).forEach((k) => (out[k] = rep[k]));
  return out;
}
