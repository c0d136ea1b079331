import type { Express } from 'express';
import { buildFilter, lookupsFor, sql, raw, type FilterDef } from '@inventory/filtering';
import { CONTENT_TYPES, contentTypeDisplay, type ContentType } from '@inventory/refs';
import { baseUrl, ignoredHeader, modelOpenApi, mountRoute, pageLinks, parsePage, requirePermission, identityOf, type RouteHandler, type ServiceContext, defineModel, f } from '@inventory/rest';
import { NotFound } from '@inventory/core';

/**
 * `/api/extras/content-types/` is served from the static catalogue: content
 * types are a property of the code, not data. Filters are the same library's.
 */
export const contentTypeModel = defineModel({
  label: 'contenttypes.contenttype',
  endpoint: 'content-types',
  verboseName: 'content type',
  fields: { app_label: f.string(100), model: f.string(100) },
  brief: ['app_label', 'model'],
  display: (r) => String(r.display),
  ordering: ['app_label', 'model'],
  readOnly: true,
  tags: false,
  customFields: false,
  timestamps: false,
});

function represent(ct: ContentType, base: string) {
  return { id: ct.id, url: `${base}/api/extras/content-types/${ct.id}/`, display: contentTypeDisplay(ct), app_label: ct.app_label, model: ct.model };
}

const sorted = [...CONTENT_TYPES].sort((a, b) => a.app_label.localeCompare(b.app_label) || a.model.localeCompare(b.model));

/** The catalogue as a VALUES list, so the shared filter library's SQL applies unchanged. */
function catalogueSql() {
  const rows = sorted.map((c, i) => sql`(${c.id}::bigint, ${c.app_label}::text, ${c.model}::text, ${i}::int)`);
  return rows.reduce((acc, r, i) => (i === 0 ? r : sql`${acc}, ${r}`));
}

export function mountContentTypes(app: Express, ctx: ServiceContext): void {
  const filters: FilterDef[] = [
    { kind: 'integer', name: 'id', expr: raw('t.id') },
    { kind: 'string', name: 'app_label', expr: raw('t.app_label') },
    { kind: 'string', name: 'model', expr: raw('t.model') },
    {
      kind: 'method',
      name: 'q',
      apply: (v) => {
        const text = v[v.length - 1]?.trim();
        return text ? sql`(t.app_label ILIKE ${`%${text}%`} OR t.model ILIKE ${`%${text}%`})` : undefined;
      },
    },
  ];
  const base = (req: Parameters<typeof baseUrl>[0]) => baseUrl(req, ctx.settings.publicUrl);
  const list: RouteHandler = async (req, res) => {
    // no model permission needed, like /api/status/ (authenticated, or login not required)
    if (ctx.settings.loginRequired && !identityOf(res).user) requirePermission(ctx, contentTypeModel, identityOf(res), 'view');
    const url = new URL(req.originalUrl, base(req));
    const filter = await buildFilter(filters, url.searchParams, { strict: ctx.settings.strictFiltering });
    if (filter.ignored.length) res.setHeader('X-Ignored-Parameters', ignoredHeader(filter.ignored));
    const rows = await ctx.db.query(sql`SELECT t.id FROM (VALUES ${catalogueSql()}) AS t(id, app_label, model, pos) WHERE ${filter.where} ORDER BY t.pos`);
    const page = parsePage(url.searchParams, ctx.settings.paginateCount, ctx.settings.maxPageSize);
    const ids = rows.map((r) => Number(r.id));
    const slice = page.limit === null ? ids.slice(page.offset) : ids.slice(page.offset, page.offset + page.limit);
    const byId = new Map(CONTENT_TYPES.map((c) => [c.id, c]));
    const links = pageLinks(url, page, ids.length);
    res.json({ count: ids.length, next: links.next, previous: links.previous, results: slice.map((id) => represent(byId.get(id)!, base(req))) });
  };
  const retrieve: RouteHandler = (req, res) => {
    const ct = /^\d+$/.test(String(req.params.id)) ? CONTENT_TYPES.find((c) => c.id === Number(req.params.id)) : undefined;
    if (!ct) throw new NotFound();
    res.json(represent(ct, base(req)));
  };
  // documented as NetBox's read-only ContentTypeViewSet, from the same declaration as a model
  const { schemas } = modelOpenApi(contentTypeModel, 'extras', new Map(), []);
  const own = { ContentType: schemas.ContentType, PaginatedContentTypeList: schemas.PaginatedContentTypeList } as Record<string, Record<string, unknown>>;
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  // every filter with each of its lookups (`id__gte`, `model__ic`...), as a model's list documents them
  const names = ['limit', 'offset', ...filters.flatMap((d) => [d.name, ...lookupsFor(d).map((l) => `${d.name}__${l}`)])];
  const type = (name: string) => (name.endsWith('__empty') ? 'boolean' : /^(id|limit|offset)(__|$)/.test(name) ? 'integer' : 'string');
  const query = names.map((name) => ({ name, in: 'query', required: false, schema: { type: type(name) } }));
  mountRoute(app, { path: '/api/extras/content-types/', name: 'Content Type List', schemas: own, operations: { get: { handler: list, query, response: ref('PaginatedContentTypeList'), operationId: 'extras_content_types_list' } } });
  mountRoute(app, { path: '/api/extras/content-types/:id/', idOf: 'content type', name: 'Content Type Instance', operations: { get: { handler: retrieve, response: ref('ContentType') } } });
}
