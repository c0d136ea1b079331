import { BadRequest, HttpError } from '@inventory/core';
import { renderTemplate, TemplateLimitError, TemplateRenderError, type RenderTask } from '@inventory/templates';
import type { ServiceContext } from '../model';

/**
 * Renders a user's template (an export template, a config template) off the
 * event loop, within the service's limits, and turns its failures into
 * answers: a template that fails answers 500 as NetBox does (with the line
 * Jinja names); one that passes a limit answers 400 naming the template and
 * the limit (the request, not the server, asked for too much).
 */
export async function renderUserTemplate(ctx: ServiceContext, task: RenderTask, name: string): Promise<string> {
  try {
    return await renderTemplate(task, ctx.settings.templateLimits);
  } catch (err) {
    if (err instanceof TemplateLimitError) throw new BadRequest(`${name}: ${err.message}.`);
    if (err instanceof TemplateRenderError) throw new HttpError(500, { detail: `An error occurred while rendering the template (line ${err.line ?? 'None'}): ${err.message}` });
    throw err;
  }
}
