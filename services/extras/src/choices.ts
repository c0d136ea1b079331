import type { Express, Request, Response } from 'express';
import { NotFound, sendJson } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { baseUrl, identityOf, mountRoute, parseId, pageLinks, pageSchema, parsePage, requirePermission, type ServiceContext } from '@inventory/rest';
import { choiceSet } from './models/custom-fields';

/**
 * `GET /api/extras/custom-field-choice-sets/<id>/choices/`: the set's choices as
 * a paginated list of `{id: value, display: label}`, `q` matching either.
 */
export function mountChoices(app: Express, ctx: ServiceContext): void {
  mountRoute(app, {
    path: '/api/extras/custom-field-choice-sets/:id/choices/',
    idOf: choiceSet.verboseName,
    schemas: { PaginatedCustomFieldChoiceList: CHOICE_PAGE },
    operations: {
      get: {
        handler: (req, res) => choices(ctx, req, res),
        summary: "Provides an endpoint to iterate through each choice in a set.",
        query: [
          { name: 'q', in: 'query', required: false, description: 'Choices whose value or label contains this text.', schema: { type: 'string' } },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer' } },
          { name: 'offset', in: 'query', required: false, schema: { type: 'integer' } },
        ],
        response: { $ref: '#/components/schemas/PaginatedCustomFieldChoiceList' },
        operationId: 'extras_custom_field_choice_sets_choices_retrieve',
      },
    },
  });
}

const CHOICE_PAGE = pageSchema({ type: 'object', properties: { id: { type: 'string' }, display: { type: 'string' } }, required: ['id', 'display'] });

async function choices(ctx: ServiceContext, req: Request, res: Response): Promise<void> {
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
}
