import { Liquid, type Template } from 'liquidjs';
import { registerJinjaFilters } from './filters';
import { jinjaToLiquid } from './jinja';
import { pyStr } from './pyvalues';

/**
 * Webhook templates (payload URL, additional headers, body): NetBox renders
 * them with Jinja2 (sandboxed, no autoescaping; spec §D.5). They run on
 * liquidjs after `jinjaToLiquid`, with Jinja's filters and Jinja's printing of
 * values (`None`, `True`, `['a', 'b']`: Python's `str()`).
 */
const engine = new Liquid({
  jsTruthy: true, // '' and 0 are false, as in Python
  strictFilters: true, // an unknown filter is a template error, as in Jinja
  ownPropertyOnly: true,
  groupedExpressions: true, // (a or b) and c
  outputEscape: (value: unknown) => pyStr(value),
  parseLimit: 1_000_000,
  renderLimit: 5_000,
  memoryLimit: 50_000_000,
});
registerJinjaFilters(engine);

const parsed = new Map<string, Template[]>();

/** The parsed template (the last 200 kept); throws what liquid or the Jinja translation throws. */
export function parseWebhookTemplate(template: string): Template[] {
  let templates = parsed.get(template);
  if (!templates) {
    templates = engine.parse(jinjaToLiquid(template));
    if (parsed.size >= 200) parsed.delete(parsed.keys().next().value as string);
    parsed.set(template, templates);
  }
  return templates;
}

/** Renders a webhook template with its context (on a template worker: see render-pool.ts). */
export async function renderWebhookTemplate(template: string, context: Record<string, unknown>): Promise<string> {
  return String(await engine.render(parseWebhookTemplate(template), { ...context }));
}
