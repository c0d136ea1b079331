import type { Express } from 'express';
import { NotFound, sendJson } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { baseUrl, identityOf, parseId, pageLinks, parsePage, requirePermission, type ServiceContext } from '@inventory/rest';
import { choiceSet } from './models/custom-fields';

/**
 * `GET /api/extras/custom-field-choice-sets/<id>/choices/`: the set's choices as
 * a paginated list of `{id: value, display: label}`, `q` matching either.
 */
export function mountChoices(app: Express, ctx: ServiceContext): void {
  app.get('/api/extras/custom-field-choice-sets/:id/choices/', async (req, res) => {
    const scope = requirePermission(ctx, choiceSet, identityOf(res), 'view');
    const id = parseId(req.params.id);
    const [row] = await ctx.db.query(sql`SELECT t.extra_choices FROM ${raw(ctx.db.table(choiceSet.table))} t WHERE t.id = ${id} AND ${scope}`);
    if (!row) throw new NotFound();
    const url = new URL(req.originalUrl, baseUrl(req, ctx.settings.publicUrl));
    const q = (url.searchParams.get('q') ?? '').trim().toLowerCase();
    const all = ((row.extra_choices as string[][] | null) ?? [])
      .map(([value, label]) => ({ id: value, display: label }))
      .filter((c) => !q || c.id.toLowerCase().includes(q) || c.display.toLowerCase().includes(q));
    const page = parsePage(url.searchParams, ctx.settings.paginateCount, ctx.settings.maxPageSize);
    const results = page.limit === null ? all.slice(page.offset) : all.slice(page.offset, page.offset + page.limit);
    const links = pageLinks(url, page, all.length);
    sendJson(res, 200, { count: all.length, next: links.next, previous: links.previous, results });
  });
}
