/**
 * Webhook templates (payload URL, additional headers, body): NetBox renders
 * them with Jinja2 (sandboxed, no autoescaping; spec §D.5). Here they are
 * checked when saved and rendered on a template worker (`@inventory/templates`'
 * render pool: liquidjs after `jinjaToLiquid`, off the dispatcher's event loop).
 */
import type { WebhookContext } from './context';
import { pyJsonDumps, parseWebhookTemplate, renderTemplate as renderOnWorker, type RenderLimits } from '@inventory/templates';

/** A template that does not parse or does not render; `message` says what and where. */
export class TemplateError extends Error {
  override name = 'TemplateError';
  constructor(
    message: string,
    readonly template: string,
  ) {
    super(message);
  }
}

/** The default body's keys, in NetBox's order. */
export const CONTEXT_KEYS = ['event', 'timestamp', 'model', 'username', 'request_id', 'data', 'snapshots'] as const;

function parse(template: string): void {
  try {
    parseWebhookTemplate(template);
  } catch (e) {
    throw templateError(e, template);
  }
}

/**
 * Renders `template` with `context` on a template worker, within `limits`
 * (the dispatcher's TEMPLATE_* settings); a bad template, or one that passes
 * a limit, is a `TemplateError`.
 */
export async function renderTemplate(template: string, context: WebhookContext | Record<string, unknown>, limits?: RenderLimits): Promise<string> {
  // the worker parses it (a template that does not parse fails there, with the same message): not here as well
  try {
    return await renderOnWorker({ kind: 'webhook', template, context: { ...context } }, limits);
  } catch (e) {
    throw templateError(e, template);
  }
}

/** The problem with `template`, or null when it parses (for 400s on a webhook's templates). */
export function validateTemplate(template: string): string | null {
  try {
    parse(template);
    return null;
  } catch (e) {
    if (e instanceof TemplateError) return e.message;
    throw e;
  }
}

/**
 * NetBox's `render_headers`: `additional_headers` rendered as one template,
 * then each line `Name: Value` split at the first colon and trimmed. Blank
 * lines are skipped; a line without a colon or with an invalid name is a
 * `TemplateError`. A later line overrides an earlier one of the same name.
 */
export async function renderHeaders(additionalHeaders: string, context: WebhookContext | Record<string, unknown>, limits?: RenderLimits): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  if (!additionalHeaders.trim()) return headers;
  const text = await renderTemplate(additionalHeaders, context, limits);
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const colon = line.indexOf(':');
    if (colon < 0) throw new TemplateError(`Invalid header line (expected "Name: Value"): ${line}`, additionalHeaders);
    const name = line.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new TemplateError(`Invalid header name: ${JSON.stringify(name)}`, additionalHeaders);
    headers[name] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** The body sent when `body_template` is blank: the context as Python's `json.dumps` writes it, keys in NetBox's order. */
export function defaultBody(context: WebhookContext): string {
  const ordered: Record<string, unknown> = {};
  for (const key of CONTEXT_KEYS) if (context[key] !== undefined) ordered[key] = context[key];
  return pyJsonDumps(ordered);
}

function templateError(e: unknown, template: string): TemplateError {
  if (e instanceof TemplateError) return e;
  if (e instanceof Error) return new TemplateError(e.message.split('\n')[0], template);
  return new TemplateError(String(e), template);
}
