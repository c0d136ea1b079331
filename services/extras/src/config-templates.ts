import type { Express, Request, Response } from 'express';
import { BadRequest, NotFound, sendJson } from '@inventory/core';
import { baseUrl, fetchByIds, identityOf, mountRoute, nestedFor, parseId, RENDERED_SCHEMAS, renderOperation, renderUserTemplate, requirePermission, type ServiceContext } from '@inventory/rest';
import { configTemplate } from './models';

/**
 * `POST /api/extras/config-templates/{id}/render/` (spec C.10): the template
 * rendered with the posted JSON object as its context; `{configtemplate,
 * content}`, or the text alone with `Accept: text/plain`. A POST needs the
 * add permission, as NetBox's viewset asks it for every POST; a template
 * error is NetBox's 500 naming the line.
 */
export function mountConfigTemplateRender(app: Express, ctx: ServiceContext): void {
  mountRoute(app, {
    path: '/api/extras/config-templates/:id/render/',
    idOf: configTemplate.verboseName,
    schemas: RENDERED_SCHEMAS,
    operations: { post: renderOperation((req, res) => render(ctx, req, res), 'Render a ConfigTemplate using the context data provided (if any).') },
  });
}

async function render(ctx: ServiceContext, req: Request, res: Response): Promise<void> {
  const id = parseId(req.params.id);
  const scope = requirePermission(ctx, configTemplate, identityOf(res), 'add');
  const body: unknown = req.body;
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) throw new BadRequest('The request body must be a JSON object.');
  const [row] = await fetchByIds(ctx, configTemplate, [id], ctx.db, scope);
  if (!row) throw new NotFound();
  const context = (body as Record<string, unknown> | null | undefined) ?? {};
  const task = { kind: 'jinja', code: String(row.template_code ?? ''), context, environment: row.environment_params } as const;
  const content = await renderUserTemplate(ctx, task, `Config template "${String(row.name)}"`);
  if (req.accepts(['application/json', 'text/plain']) === 'text/plain') {
    res.status(200).type('text/plain; charset=utf-8').send(content);
    return;
  }
  const nested = (await nestedFor(ctx, configTemplate.label, [id], baseUrl(req, ctx.settings.publicUrl))).get(id);
  sendJson(res, 200, { configtemplate: nested, content });
}
