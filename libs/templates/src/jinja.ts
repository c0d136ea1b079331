/**
 * Jinja2 syntax, as NetBox users write it in webhook templates, rewritten to
 * the liquid syntax liquidjs runs. Only what differs is touched:
 *
 *   `| f(a, b)` → `| f: a, b`       `| f(x, key='v')` → `| f: x, key: 'v'`      `| f()` → `| f`
 *   `{% elif %}` → `{% elsif %}`    `{% set x = … %}` → `{% assign x = … %}`     `{# … #}` → nothing
 *   `None`/`none` → `nil`, `True`/`False` → `true`/`false`, `loop.index` → `forloop.index`
 *
 * `{% raw %}…{% endraw %}` is copied as it is. Jinja's own details are kept:
 * `\r\n` becomes `\n` and one trailing newline of the template is dropped.
 */

export class JinjaSyntaxError extends Error {
  override name = 'JinjaSyntaxError';
}

const TOKEN = /'[^']*'|"[^"]*"|\s+|[A-Za-z_]\w*|\d+(?:\.\d+)?|==|!=|<=|>=|[\s\S]/g;
const CONSTANTS: Record<string, string> = { None: 'nil', none: 'nil', True: 'true', False: 'false' };

export function jinjaToLiquid(source: string): string {
  const src = source.replace(/\r\n?/g, '\n').replace(/\n$/, '');
  let out = '';
  let i = 0;
  for (;;) {
    const open = src.slice(i).search(/\{[{%#]/);
    if (open < 0) return out + src.slice(i);
    const start = i + open;
    out += src.slice(i, start);
    const kind = src[start + 1];
    if (kind === '#') {
      const end = src.indexOf('#}', start + 2);
      if (end < 0) throw new JinjaSyntaxError('Missing end of comment tag');
      i = end + 2;
      continue;
    }
    const close = kind === '{' ? '}}' : '%}';
    const end = findClose(src, start + 2, close);
    if (end < 0) return out + src.slice(start); // liquid names the unclosed tag
    const inner = src.slice(start + 2, end);
    i = end + 2;
    if (kind === '{') {
      out += `{{${expression(inner)}}}`;
      continue;
    }
    const m = /^(-?\s*)(\w+)([\s\S]*)$/.exec(inner);
    if (!m) {
      out += `{%${inner}%}`;
      continue;
    }
    const [, lead, name, rest] = m;
    if (name === 'raw') {
      const endRaw = /\{%-?\s*endraw\s*-?%\}/.exec(src.slice(i));
      if (!endRaw) throw new JinjaSyntaxError("Missing end of raw directive: expected '{% endraw %}'");
      out += `{%${inner}%}` + src.slice(i, i + endRaw.index) + endRaw[0];
      i += endRaw.index + endRaw[0].length;
      continue;
    }
    const tag = name === 'elif' ? 'elsif' : name === 'set' ? 'assign' : name;
    out += `{%${lead}${tag}${expression(rest)}%}`;
  }
}

/** The index of `close` after `from`, outside string literals; -1 when missing. */
function findClose(src: string, from: number, close: string): number {
  let quote = '';
  for (let j = from; j < src.length; j++) {
    const c = src[j];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (src.startsWith(close, j)) {
      return j;
    }
  }
  return -1;
}

function expression(text: string): string {
  return translate(text.match(TOKEN) ?? []);
}

function translate(tokens: string[]): string {
  let out = '';
  const prevSignificant = (k: number): string | undefined => {
    for (let j = k - 1; j >= 0; j--) if (!/^\s+$/.test(tokens[j])) return tokens[j];
    return undefined;
  };
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k];
    if (t === '|') {
      const call = filterCall(tokens, k + 1);
      if (call) {
        out += `| ${call.name}` + (call.args.trim() ? `: ${call.args.trim()}` : '');
        k = call.end;
        continue;
      }
    }
    const afterDot = prevSignificant(k) === '.';
    if (!afterDot && CONSTANTS[t]) out += CONSTANTS[t];
    else if (!afterDot && t === 'loop' && tokens[k + 1] === '.') out += 'forloop';
    else out += t;
  }
  return out;
}

/** `| name ( args )` starting after the bar: the name, the translated args and the index of `)`. */
function filterCall(tokens: string[], k: number): { name: string; args: string; end: number } | null {
  let j = k;
  while (j < tokens.length && /^\s+$/.test(tokens[j])) j++;
  const name = tokens[j];
  if (!name || !/^[A-Za-z_]\w*$/.test(name)) return null;
  let p = j + 1;
  while (p < tokens.length && /^\s+$/.test(tokens[p])) p++;
  if (tokens[p] !== '(') return null;
  let depth = 0;
  for (let e = p; e < tokens.length; e++) {
    if (tokens[e] === '(') depth++;
    else if (tokens[e] === ')' && --depth === 0) {
      return { name, args: keywordArgs(tokens.slice(p + 1, e)), end: e };
    }
  }
  throw new JinjaSyntaxError(`unexpected end of template, expected ')' after the arguments of filter '${name}'`);
}

/** Translated arguments, with Jinja's `key=value` as liquid's `key: value`. */
function keywordArgs(tokens: string[]): string {
  const parts: string[] = [];
  for (let k = 0; k < tokens.length; k++) {
    let before = k - 1;
    while (before >= 0 && /^\s+$/.test(tokens[before])) before--;
    const isKeyword = tokens[k] === '=' && /^[A-Za-z_]\w*$/.test(tokens[before] ?? '');
    if (!isKeyword) {
      parts.push(tokens[k]);
      continue;
    }
    parts.length -= k - 1 - before;
    parts.push(': ');
    while (/^\s+$/.test(tokens[k + 1] ?? '')) k++;
  }
  return translate(parts.join('').match(TOKEN) ?? []);
}
