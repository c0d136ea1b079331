import { Liquid, type Template } from 'liquidjs';
import { registerJinjaFilters } from './filters';
import { jinjaToLiquid } from './jinja';
import { pyStr } from './pyvalues';

/**
 * NetBox's ConfigTemplate.render: the template code (Jinja2) rendered in an
 * environment built from the template's `environment_params`, here on
 * liquidjs after `jinjaToLiquid`.
 *
 * Accepted (as Jinja means it): `{{ device.name }}`, `{{ x['key'] }}`,
 * `{% if %}/{% elif %}/{% else %}` with `and`/`or`/`==`/`!=`/`<`/`>`/`in`
 * ("contains" in liquid's order is not translated), `{% for i in list %}`
 * with `loop.index`/`loop.first`/`loop.last`, `{% set x = … %}`,
 * `{# comments #}`, `{% raw %}`, `{%- -%}` whitespace control, Python
 * literals (`None`, `True`, `False`) and Jinja's filters with Jinja's
 * arguments: upper, lower, title, capitalize, trim, length/count, join,
 * replace, default/d, map, first, last, list, unique, string, int, float,
 * abs, safe, tojson. Values print as Python's `str()` does.
 *
 * Not accepted (a template error, as an unknown name is in Jinja): method
 * calls (`device.interfaces.all()`, `dict.items()`), `{% macro %}`,
 * `{% include %}`, `{% extends %}`/`{% block %}` (no template files here),
 * tests (`is defined`), `not`, arithmetic and string `%` formatting, and
 * filters outside the list above. Context keys named like liquid's
 * literals (`empty`, `blank`, `nil`, and `none` here) read as the literal.
 *
 * `environment_params` honoured: `trim_blocks`, `lstrip_blocks` (liquid's
 * non-greedy tag trimming), `keep_trailing_newline`, and
 * `undefined: "jinja2.StrictUndefined"` (an undefined name is an error);
 * any other key is ignored.
 */

/** A template that does not parse or render; `line` as Jinja reports it (null when unknown). */
export class TemplateRenderError extends Error {
  override name = 'TemplateRenderError';
  constructor(
    message: string,
    readonly line: number | null,
  ) {
    super(message);
  }
}

interface Environment {
  trimBlocks: boolean;
  lstripBlocks: boolean;
  keepTrailingNewline: boolean;
  strict: boolean;
}

function environmentOf(params: unknown): Environment {
  const p = params && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
  return {
    trimBlocks: p.trim_blocks === true,
    lstripBlocks: p.lstrip_blocks === true,
    keepTrailingNewline: p.keep_trailing_newline === true,
    strict: typeof p.undefined === 'string' && /(^|\.)StrictUndefined$/.test(p.undefined),
  };
}

const engines = new Map<string, Liquid>();

function engineFor(env: Environment): Liquid {
  const key = JSON.stringify(env);
  let engine = engines.get(key);
  if (!engine) {
    engine = new Liquid({
      jsTruthy: true, // '' and 0 are false, as in Python
      strictFilters: true, // an unknown filter is an error, as in Jinja
      strictVariables: env.strict,
      ownPropertyOnly: true,
      groupedExpressions: true,
      trimTagRight: env.trimBlocks,
      trimTagLeft: env.lstripBlocks,
      greedy: false, // trim_blocks takes the one newline after a tag, lstrip_blocks the blanks before it on its line
      outputEscape: (value: unknown) => pyStr(value),
      parseLimit: 1_000_000,
      renderLimit: 10_000,
      memoryLimit: 100_000_000,
    });
    registerJinjaFilters(engine);
    engines.set(key, engine);
  }
  return engine;
}

/** The line a liquidjs (or translation) error names, and its message without liquid's position suffix. */
function describe(err: unknown): TemplateRenderError {
  if (err instanceof TemplateRenderError) return err;
  const e = err as { message?: string; token?: { getPosition?: () => [number, number] } };
  const text = String(e?.message ?? err).split('\n')[0];
  const position = /, line:(\d+), col:\d+$/.exec(text);
  let line = position ? Number(position[1]) : null;
  if (line === null && e?.token?.getPosition) line = e.token.getPosition()[0];
  return new TemplateRenderError(text.replace(/, line:\d+, col:\d+$/, ''), line);
}

/** Renders template code with a context, in the environment its parameters describe; errors are `TemplateRenderError`s. */
export async function renderJinja(code: string, context: Record<string, unknown>, environmentParams?: unknown): Promise<string> {
  const env = environmentOf(environmentParams);
  const engine = engineFor(env);
  let templates: Template[];
  try {
    templates = engine.parse(jinjaToLiquid(code));
  } catch (err) {
    throw describe(err);
  }
  let out: string;
  try {
    out = String(await engine.render(templates, { ...context }));
  } catch (err) {
    throw describe(err);
  }
  // Jinja drops one trailing newline of the template unless told to keep it (jinjaToLiquid drops it)
  if (env.keepTrailingNewline && /\r?\n$/.test(code)) out += '\n';
  return out.replace(/\r\n/g, '\n');
}
