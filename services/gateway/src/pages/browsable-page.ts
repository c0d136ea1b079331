import { STATUS_CODES } from 'node:http';
import type { Response } from 'express';
import { sendHtml } from '@inventory/core';
import { BROWSABLE_SCRIPT, BROWSABLE_SCRIPT_HASH } from './browsable-script';
import { writable, type ActionFields } from './browsable-forms';
import { escapeHtml } from '@inventory/core';
import { isHttpUrl, jsonHtml, linkify } from './json-html';

/**
 * The browsable API's page, as DRF draws it: the view's name and
 * description, the request line, the response's status line, headers and
 * JSON (URLs as links), pagination links, a filter box on lists and, for a
 * signed-in browser, the forms that write through the API. Everything shown
 * is escaped: the JSON is user data.
 */
export interface BrowsableView {
  /** The view's name (OPTIONS `name`, DRF's "Tenant List") and description. */
  name: string;
  description: string;
  /** The request line: method and path with query, as the client sent them. */
  method: string;
  fullPath: string;
  /** The API's answer. `body` is its parsed JSON (undefined: none); `text` a body that is not JSON. */
  status: number;
  headers: [string, string][];
  body?: unknown;
  text?: string;
  /** Links above the title: label → href (the last is the page itself). */
  breadcrumbs: [string, string][];
  /** Escaped HTML: who is signed in, or a login link. */
  nav: string;
  /** The session's CSRF token; null without a session (then there are no forms). */
  csrfToken: string | null;
  /** The list's filters as a query string (undefined: not a list, no filter box). */
  filters?: string;
  /** The same request as JSON (`?format=json`). */
  jsonHref: string;
  forms: BrowsableForms;
}

export interface BrowsableForms {
  /** Where the forms send (the endpoint's path). */
  url: string;
  /** List: a new object's JSON and the writable fields. */
  post?: { initial: unknown; fields: ActionFields };
  /** Detail: the object's editable JSON, its ETag and the writable fields. */
  edit?: { initial: unknown; etag: string | null; fields: ActionFields };
  /** Detail: a DELETE button. */
  remove?: boolean;
}

const STYLE = `body{font-family:system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{display:flex;justify-content:space-between;align-items:center;background:#1f3a56;color:#fff;padding:.6rem 2rem}
header a,header button.link{color:#fff}
header form{display:inline;margin:0}
button.link{background:none;border:none;padding:0;color:#0645ad;cursor:pointer;font:inherit;text-decoration:underline}
main{max-width:72rem;margin:0 auto;padding:1rem 2rem 3rem}
ol.breadcrumb{list-style:none;padding:0;margin:0 0 1rem;display:flex;flex-wrap:wrap;gap:.4rem}
ol.breadcrumb li+li:before{content:"/";margin-right:.4rem;color:#888}
.toolbar{float:right;display:flex;gap:.5rem;align-items:center}
.toolbar form{margin:0}
h1{margin:.5rem 0}
.description{color:#555}
pre{background:#fff;border:1px solid #ddd;padding:.75rem 1rem;overflow:auto;white-space:pre-wrap;word-break:break-word}
pre.request{margin-bottom:0;border-bottom:none}
pre.response{margin-top:0}
nav.pagination{display:flex;gap:1rem;align-items:center;justify-content:flex-end}
form.filters{display:flex;gap:.5rem;align-items:center;margin:1rem 0}
form.filters input{flex:1;padding:.4rem;font-family:ui-monospace,monospace}
section.form{background:#fff;border:1px solid #ddd;padding:1rem;margin:1rem 0}
section.form h2{margin-top:0;font-size:1.1rem}
textarea{width:100%;box-sizing:border-box;min-height:14rem;font-family:ui-monospace,monospace;font-size:.9rem}
.buttons{display:flex;gap:.5rem;margin-top:.5rem}
button.write{padding:.4rem 1rem}
button.danger{background:#b42318;color:#fff;border:1px solid #8a1a12;padding:.4rem 1rem}
details{margin-top:.75rem}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid #eee;padding:.25rem .5rem;text-align:left;vertical-align:top;font-size:.9rem}
#browsable-status{color:#555;min-height:1.2em}`;

/** Headers of every browsable page: never cached or framed; only its own script runs, and it talks only to us. */
const CSP = `default-src 'none'; script-src ${BROWSABLE_SCRIPT_HASH}; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

export function sendBrowsable(res: Response, status: number, html: string): void {
  // the page depends on the Accept header and on the cookie (a name, a CSRF token)
  res.setHeader('Vary', 'Accept, Cookie');
  sendHtml(res, status, html, CSP);
}

/** `HTTP 200 OK`. */
export function statusLine(status: number): string {
  return `HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd();
}

export function renderBrowsable(v: BrowsableView): string {
  const crumbs = v.breadcrumbs
    .map(([label, href], i) => (i === v.breadcrumbs.length - 1 ? `<li aria-current="page">${escapeHtml(label)}</li>` : `<li><a href="${escapeHtml(href)}">${escapeHtml(label)}</a></li>`))
    .join('');
  const csrfMeta = v.csrfToken ? `\n    <meta name="csrf-token" content="${escapeHtml(v.csrfToken)}">` : '';
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">${csrfMeta}
    <title>${escapeHtml(v.name)} | NetBox REST API</title>
    <style>${STYLE}</style>
  </head>
  <body>
    <header><strong>NetBox REST API</strong><nav class="user">${v.nav}</nav></header>
    <main>
      <ol class="breadcrumb">${crumbs}</ol>
      <div class="toolbar">
        <form data-url="${escapeHtml(v.forms.url)}" data-method="OPTIONS"><button type="submit" value="OPTIONS">OPTIONS</button></form>
        <a href="${escapeHtml(v.jsonHref)}" rel="alternate" type="application/json">json</a>
      </div>
      <h1>${escapeHtml(v.name)}</h1>
${v.description ? `      <p class="description">${linkify(v.description)}</p>\n` : ''}${filterBox(v.filters)}${responsePanel(v)}
${formsSection(v)}
      <p id="browsable-status" role="status"></p>
    </main>
    <script>${BROWSABLE_SCRIPT}</script>
  </body>
</html>
`;
}

function filterBox(filters: string | undefined): string {
  if (filters === undefined) return '';
  return `      <form class="filters" id="filter-form" role="search">
        <label for="id_filters">Filters</label>
        <input type="text" id="id_filters" name="filters" value="${escapeHtml(filters)}" placeholder="status=active&amp;tenant=acme" spellcheck="false">
        <button type="submit">Apply</button>
      </form>
`;
}

function responsePanel(v: BrowsableView): string {
  const headers = v.headers.map(([k, val]) => `\n<b>${escapeHtml(k)}:</b> ${linkify(val)}`).join('');
  const content = v.body !== undefined ? jsonHtml(v.body) : linkify(v.text ?? '');
  return `      <section id="response">
${pagination(v.body)}        <pre class="request"><b>${escapeHtml(v.method)}</b> ${escapeHtml(v.fullPath)}</pre>
        <pre class="response"><b>${escapeHtml(statusLine(v.status))}</b>${headers}

${content}</pre>
      </section>`;
}

/** Previous / next of a paginated list (the service's own links, http(s) only). */
function pagination(body: unknown): string {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('results' in body)) return '';
  const b = body as { count?: unknown; next?: unknown; previous?: unknown };
  if (!isHttpUrl(b.next) && !isHttpUrl(b.previous)) return '';
  const prev = isHttpUrl(b.previous) ? `<a href="${escapeHtml(b.previous)}" rel="prev">« Previous</a>` : '<span>« Previous</span>';
  const next = isHttpUrl(b.next) ? `<a href="${escapeHtml(b.next)}" rel="next">Next »</a>` : '<span>Next »</span>';
  const count = typeof b.count === 'number' ? `<span>${b.count} in all</span>` : '';
  return `        <nav class="pagination" aria-label="pagination">${prev}${count}${next}</nav>\n`;
}

function formsSection(v: BrowsableView): string {
  const f = v.forms;
  const parts: string[] = [];
  if (v.csrfToken && f.post) {
    parts.push(`        <section class="form" aria-label="POST">
          <h2>Create (POST)</h2>
          <form data-url="${escapeHtml(f.url)}" data-method="POST">
            <label for="id_post_content">Content (application/json)</label>
            <textarea id="id_post_content" name="_content" spellcheck="false">${escapeHtml(JSON.stringify(f.post.initial, null, 4))}</textarea>
            <div class="buttons"><button type="submit" class="write" value="POST">POST</button></div>
          </form>
${fieldTable(f.post.fields)}        </section>`);
  }
  if (v.csrfToken && f.edit) {
    const etag = f.edit.etag ? ` data-etag="${escapeHtml(f.edit.etag)}"` : '';
    parts.push(`        <section class="form" aria-label="PUT and PATCH">
          <h2>Change (PUT / PATCH)</h2>
          <form data-url="${escapeHtml(f.url)}" data-method="PUT"${etag}>
            <label for="id_edit_content">Content (application/json)</label>
            <textarea id="id_edit_content" name="_content" spellcheck="false">${escapeHtml(JSON.stringify(f.edit.initial, null, 4))}</textarea>
            <div class="buttons"><button type="submit" class="write" value="PUT">PUT</button><button type="submit" class="write" value="PATCH">PATCH</button></div>
          </form>
${fieldTable(f.edit.fields)}        </section>`);
  }
  if (v.csrfToken && f.remove) {
    parts.push(`        <section class="form" aria-label="DELETE">
          <form data-url="${escapeHtml(f.url)}" data-method="DELETE" data-confirm="Delete this object? This cannot be undone.">
            <button type="submit" class="danger" value="DELETE">DELETE</button>
          </form>
        </section>`);
  }
  return `      <section id="forms">\n${parts.join('\n')}\n      </section>`;
}

/** The writable fields of a form (from OPTIONS): what the JSON may carry. */
function fieldTable(fields: ActionFields): string {
  const rows = writable(fields)
    .map(([name, f]) => {
      const notes = [
        f.required ? 'required' : '',
        typeof f.max_length === 'number' ? `max ${f.max_length} characters` : '',
        Array.isArray(f.choices) ? `one of ${f.choices.map((c) => JSON.stringify(c.value)).join(', ')}` : '',
        typeof f.help_text === 'string' ? f.help_text : '',
      ].filter(Boolean);
      return `              <tr><td><code>${escapeHtml(name)}</code></td><td>${escapeHtml(String(f.type ?? ''))}</td><td>${escapeHtml(notes.join('; '))}</td></tr>`;
    })
    .join('\n');
  return `          <details>
            <summary>Fields</summary>
            <table>
              <thead><tr><th>field</th><th>type</th><th></th></tr></thead>
              <tbody>
${rows}
              </tbody>
            </table>
          </details>
`;
}
