import { Liquid, type Context } from 'liquidjs';

/**
 * Our own HTML pages (the gateway's, the webhooks admin page) as liquid
 * templates: `<root>/<name>.liquid`, the markup, with the data the code
 * gathers. One engine per package, made once at load; unlike the Jinja
 * templates users write (config.ts), these are ours and trusted.
 */
export interface HtmlTemplateOptions {
  /** Text as HTML (core's escapeHtml: this library sits beside core, not above it). */
  escape: (text: string) => string;
  /** Values every template and partial sees (constants such as a form field's name). */
  globals?: Record<string, unknown>;
}

/** `name` rendered with `data`; a missing template or a runaway render throws. */
export type RenderHtml = (name: string, data: object) => string;

/** A page renders in milliseconds; these only stop a runaway (the largest page, an object's JSON to edit, is a few MB). */
const RENDER_LIMIT_MS = 1_000;
const MEMORY_LIMIT = 64 * 1024 * 1024;

export function htmlTemplates(root: string, options: HtmlTemplateOptions): RenderHtml {
  const { escape } = options;
  // what is escaped counts towards the memory limit, as liquidjs's own `escape` counts it
  function escapeOutput(this: { context: Context }, value: unknown): string {
    const text = value === undefined || value === null ? '' : String(value);
    this.context.memoryLimit.use(text.length);
    return escape(text);
  }
  const engine = new Liquid({
    root,
    extname: '.liquid',
    // each file is read and parsed on first use, then kept for the life of the process
    cache: true,
    // every `{{ }}` is escaped; only `| raw` output is not (HTML the code built escaped)
    outputEscape: escapeOutput,
    // `-%}` ends its own line only: a tag alone on its line leaves nothing, and the next line keeps its indent
    greedy: false,
    // '' and 0 are false, as in the TypeScript that gathers the data
    jsTruthy: true,
    strictFilters: true,
    ownPropertyOnly: true,
    globals: options.globals ?? {},
    renderLimit: RENDER_LIMIT_MS,
    memoryLimit: MEMORY_LIMIT,
  });
  // synchronous: the templates are small and parsed already, and a page is one pass over its data
  return (name, data) => String(engine.renderFileSync(name, data));
}
