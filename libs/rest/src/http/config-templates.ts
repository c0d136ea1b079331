import type { Request, Response } from 'express';
import { BadRequest, HttpError, NotFound, sendJson } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import { areaOf, type Queryable, type ModelDef, type ServiceContext, type Row } from '../model';
import type { RouteDecl, RouteHandler, RouteOperation } from './routes';
import { projectedModels, projection } from '../projections';
import { fetchByIds, identityOf, parseId, requirePermission, nestedFor, represent, baseUrl, renderUserTemplate } from '../read';
import { resolveRefs } from '../write';

/**
 * NetBox's render-config (`POST /api/dcim/devices/{id}/render-config/`,
 * `/api/virtualization/virtual-machines/{id}/render-config/`): the object's
 * config template (its own, else its role's, else its platform's) rendered
 * with the object's config context, the request body over it, and the object
 * itself (as `device` / `virtualmachine`). Templates are Jinja as NetBox
 * users write them, run on liquidjs on a template worker, within the
 * service's time and output limits (@inventory/templates `renderJinja`
 * says what is accepted).
 */

export const CONFIG_TEMPLATE_LABEL = 'extras.configtemplate';

export interface RenderConfigOptions {
  /**
   * Where the template comes from, first found wins: fields of the model,
   * each a relation to extras.configtemplate itself (`config_template`) or
   * to a model whose own `config_template` names one (`role`, `platform`).
   */
  templateFrom: string[];
  /** The object's name in the template context; default the model name (`device`, `virtualmachine`). */
  as?: string;
}

export interface RenderedConfig {
  /** The template's nested representation `{id, url, display, name}`. */
  configtemplate: Row;
  content: string;
}

/** The `config_template` id a related object names (local row, or the owner's snapshot in the projection). */
async function templateOfRelated(ctx: ServiceContext, label: string, id: number, q: Queryable): Promise<number | null> {
  const local = ctx.models.get(label);
  if (local) {
    if (local.fields.config_template?.type !== 'fk') return null;
    const [row] = await q.query(sql`SELECT config_template_id AS t FROM ${raw(ctx.db.table(local.table))} WHERE id = ${id}`);
    return row?.t === null || row?.t === undefined ? null : Number(row.t);
  }
  if (!projectedModels(ctx).has(label)) return null;
  const [row] = await q.query(sql`SELECT (data->>'config_template')::bigint AS t FROM ${projection(ctx, label)} WHERE id = ${id} AND NOT deleted`);
  return row?.t === null || row?.t === undefined ? null : Number(row.t);
}

/** The first config template the object's `templateFrom` fields lead to; null when none does. */
export async function configTemplateFor(ctx: ServiceContext, model: ModelDef, row: Row, opts: RenderConfigOptions, q: Queryable = ctx.db): Promise<number | null> {
  for (const name of opts.templateFrom) {
    const field = model.fields[name];
    if (field?.type !== 'fk') throw new Error(`render-config of ${model.label}: ${name} is not a relation`);
    const target = row[`${name}_id`];
    if (target === null || target === undefined) continue;
    const found = field.to === CONFIG_TEMPLATE_LABEL ? Number(target) : await templateOfRelated(ctx, field.to, Number(target), q);
    if (found !== null) return found;
  }
  return null;
}

/** A template's code and environment parameters: extras' own table, or this service's projection (filled from extras on a miss). */
async function templateRecord(ctx: ServiceContext, id: number, q: Queryable): Promise<Row | null> {
  const local = ctx.models.get(CONFIG_TEMPLATE_LABEL);
  if (local) {
    const [row] = await q.query(sql`SELECT template_code, environment_params FROM ${raw(ctx.db.table(local.table))} WHERE id = ${id}`);
    return row ?? null;
  }
  if (!projectedModels(ctx).has(CONFIG_TEMPLATE_LABEL)) throw new Error(`${ctx.name} does not project ${CONFIG_TEMPLATE_LABEL}: declare a config_template relation`);
  const read = async () => (await q.query(sql`SELECT data FROM ${projection(ctx, CONFIG_TEMPLATE_LABEL)} WHERE id = ${id} AND NOT deleted`))[0]?.data as Row | undefined;
  let data = await read();
  // made a moment ago: extras is asked, and its answer kept in the projection
  if (!data && !('error' in (await resolveRefs(ctx, CONFIG_TEMPLATE_LABEL, [id], q))[0])) data = await read();
  return data ?? null;
}

/**
 * Renders the config of one object: `{configtemplate, content}`. The body
 * (a JSON object, or nothing) is merged over the object's config context,
 * then the object itself is added under `as`. No template: 400
 * `{"error": "No config template found for this <verbose name>."}`; a
 * template error: 500 `{"detail": "An error occurred while rendering the
 * template (line N): …"}`, as NetBox answers them. `scope` limits the
 * objects the caller may reach (404 otherwise).
 */
export async function renderConfig(
  ctx: ServiceContext,
  model: ModelDef,
  id: number,
  body: unknown,
  base: string,
  opts: RenderConfigOptions,
  scope = raw('TRUE'),
): Promise<RenderedConfig> {
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) throw new BadRequest('The request body must be a JSON object.');
  const [row] = await fetchByIds(ctx, model, [id], ctx.db, scope);
  if (!row) throw new NotFound();
  const templateId = await configTemplateFor(ctx, model, row, opts);
  const template = templateId === null ? null : await templateRecord(ctx, templateId, ctx.db);
  if (templateId === null || !template) throw new HttpError(400, { error: `No config template found for this ${model.verboseName}.` });
  const [rep] = await represent(ctx, model, [row], { mode: 'full', base });
  const context: Row = { ...((rep.config_context as Row | undefined) ?? {}), ...((body as Row | null | undefined) ?? {}), [opts.as ?? model.model]: rep };
  const task = { kind: 'jinja', code: String(template.template_code ?? ''), context, environment: template.environment_params } as const;
  const content = await renderUserTemplate(ctx, task, `Config template "${String(template.name ?? templateId)}"`);
  const nested = (await nestedFor(ctx, CONFIG_TEMPLATE_LABEL, [templateId], base)).get(templateId) ?? { id: templateId };
  return { configtemplate: nested, content };
}

/**
 * The route handler: `app.post('/api/dcim/devices/:id/render-config/',
 * renderConfigHandler(ctx, device, { templateFrom: ['config_template', 'role', 'platform'] }))`.
 * A POST needs the add permission on the model and a write-enabled token,
 * as NetBox 3.x's viewset asks them for every POST (netbox#14634; 4.5 adds a
 * `render_config` action instead); `Accept: text/plain` answers the rendered
 * text alone.
 */
export function renderConfigHandler(ctx: ServiceContext, model: ModelDef, opts: RenderConfigOptions) {
  return async (req: Request, res: Response): Promise<void> => {
    const id = parseId(req.params.id);
    const scope = requirePermission(ctx, model, identityOf(res), 'add');
    const out = await renderConfig(ctx, model, id, req.body, baseUrl(req, ctx.settings.publicUrl), opts, scope);
    if (req.accepts(['application/json', 'text/plain']) === 'text/plain') {
      res.status(200).type('text/plain; charset=utf-8').send(out.content);
      return;
    }
    sendJson(res, 200, out);
  };
}

/** The rendered answer's schema (render-config and a config template's render/), and the body both take. */
export const RENDERED_SCHEMAS = {
  RenderedConfig: {
    type: 'object',
    properties: {
      configtemplate: { type: 'object', properties: { id: { type: 'integer' }, url: { type: 'string', format: 'uri' }, display: { type: 'string' }, name: { type: 'string' } }, additionalProperties: true },
      content: { type: 'string' },
    },
    required: ['configtemplate', 'content'],
  },
};

/** The documented render operation: a JSON object in, the rendered config out (the text alone with `Accept: text/plain`). */
export function renderOperation(handler: RouteHandler, summary: string): RouteOperation {
  return {
    handler,
    summary,
    request: { type: 'object', additionalProperties: true, description: 'Context data over the defaults.' },
    response: { $ref: '#/components/schemas/RenderedConfig' },
    alternatives: { 'text/plain': { type: 'string' } },
  };
}

/** `POST …/{id}/render-config/` of a model, declared for mountRoute. */
export function renderConfigRoute(ctx: ServiceContext, model: ModelDef, opts: RenderConfigOptions): RouteDecl {
  return {
    path: `/api/${areaOf(model, ctx)}/${model.endpoint}/:id/render-config/`,
    idOf: model.verboseName,
    name: 'Render Config',
    schemas: RENDERED_SCHEMAS,
    operations: { post: renderOperation(renderConfigHandler(ctx, model, opts), `Resolve and render the preferred ConfigTemplate for this ${model.verboseName}.`) },
  };
}
