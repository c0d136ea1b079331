import type { Identity } from '@inventory/auth';
import { ValidationError } from '@inventory/core';
import { type Sql, sql, raw } from '@inventory/filtering';
import type { ModelDef, ServiceContext } from '../model';
import { projection, projectedTextList } from '../projections';

/**
 * NetBox's saved filters on every list (`?filter=<slug>`, `?filter_id=<id>`):
 * the saved filter's `parameters` join the request's own query parameters
 * before the filters are built, as NetBox's BaseFilterSet merges them. The
 * saved filters are extras' objects; every other service reads its
 * projection of them (fed by extras' change events), so a list applies
 * them with one local statement and no call (docs/decisions/023).
 */

export const SAVED_FILTER_LABEL = 'extras.savedfilter';

/** Query parameters of a list that are not filters: saved filters and exports. */
export const LIST_ACTION_PARAMS: readonly string[] = ['filter', 'filter_id', 'export', 'as_of'];

/**
 * The saved filters a caller may see and use, as SQL over a row with
 * `shared` and `user_id` (alias `t`): superusers see every one, others the
 * shared ones and their own; an anonymous caller the shared ones (NetBox's
 * SavedFilter list view and `usable` filter).
 */
export function savedFilterVisibility(identity: Identity, alias = 't'): Sql {
  const a = raw(alias);
  const user = identity.user;
  if (user?.is_superuser && user.is_active) return raw('TRUE');
  if (!user) return sql`${a}.shared`;
  return sql`(${a}.shared OR ${a}.user_id = ${user.id})`;
}

/**
 * The saved filters as rows (`id, slug, name, weight, content_types,
 * user_id, enabled, shared, parameters`): extras' own table in extras, the
 * projection elsewhere.
 */
function savedFilterRows(ctx: ServiceContext): Sql {
  const local = ctx.models.get(SAVED_FILTER_LABEL);
  if (local) {
    return sql`SELECT id, slug, name, weight, content_types::text[] AS content_types, user_id, enabled, shared, parameters FROM ${raw(ctx.db.table(local.table))}`;
  }
  return sql`SELECT id, data->>'slug' AS slug, data->>'name' AS name, (data->>'weight')::int AS weight,
                    ${projectedTextList('content_types')} AS content_types,
                    (data->>'user')::bigint AS user_id, COALESCE((data->>'enabled')::boolean, FALSE) AS enabled,
                    COALESCE((data->>'shared')::boolean, FALSE) AS shared, data->'parameters' AS parameters
               FROM ${projection(ctx, SAVED_FILTER_LABEL)} WHERE NOT deleted`;
}

const notAChoice = (param: string, value: string) => new ValidationError({ [param]: [`Select a valid choice. ${value} is not one of the available choices.`] });

/** A saved filter's parameter value as query values (NetBox makes a scalar a one-item list). */
function queryValues(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((v) => (v === null ? 'null' : typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v)));
}

/**
 * The query parameters the list filters by: the request's, with the
 * parameters of every saved filter it names appended (`filter`/`filter_id`
 * removed). A saved filter applies when it is enabled, is for this model
 * and the caller may see it; one named that does not is a 400 naming the
 * parameter (NetBox skips it silently and answers the unfiltered list).
 * One statement, none without `filter`/`filter_id`.
 */
export async function withSavedFilters(ctx: ServiceContext, model: ModelDef, params: URLSearchParams, identity: Identity): Promise<URLSearchParams> {
  const slugs = params.getAll('filter').filter((v) => v !== '');
  const idTexts = params.getAll('filter_id').filter((v) => v !== '');
  if (!slugs.length && !idTexts.length) return params;
  const bad = idTexts.find((v) => !/^\d{1,15}$/.test(v));
  if (bad !== undefined) throw notAChoice('filter_id', bad);
  const ids = idTexts.map(Number);
  const found = await ctx.db.query(sql`
    SELECT s.id, s.slug, s.parameters FROM (${savedFilterRows(ctx)}) s
     WHERE (s.slug = ANY(${slugs}::text[]) OR s.id = ANY(${ids}::bigint[]))
       AND s.enabled AND ${model.label} = ANY(s.content_types) AND ${savedFilterVisibility(identity, 's')}
     ORDER BY s.weight, s.name, s.id`);
  const missingSlug = slugs.find((slug) => !found.some((r) => r.slug === slug));
  if (missingSlug !== undefined) throw notAChoice('filter', missingSlug);
  const missingId = ids.find((id) => !found.some((r) => Number(r.id) === id));
  if (missingId !== undefined) throw notAChoice('filter_id', String(missingId));
  const out = new URLSearchParams(params);
  out.delete('filter');
  out.delete('filter_id');
  for (const r of found) {
    const parameters = r.parameters;
    if (!parameters || typeof parameters !== 'object' || Array.isArray(parameters)) continue;
    for (const [key, value] of Object.entries(parameters as Record<string, unknown>)) for (const v of queryValues(value)) out.append(key, v);
  }
  return out;
}
