import { STATUS_CODES } from 'node:http';
import type { Response } from 'express';
import { sendHtml } from '@inventory/core';
import { BROWSABLE_SCRIPT, BROWSABLE_SCRIPT_HASH } from './browsable-script';
import { writable, type ActionFields } from './browsable-forms';
import { isHttpUrl, jsonHtml, linkify } from './json-html';
import type { NavView } from './page-html';
import { renderPage } from './templates';

/**
 * The browsable API's page, as DRF draws it (templates/browsable.liquid): the
 * view's name and description, the request line, the response's status line,
 * headers and JSON (URLs as links), pagination links, a filter box on lists
 * and, for a signed-in browser, the forms that write through the API.
 * Everything shown is escaped: the JSON is user data.
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
  /** Who is signed in, or a login link. */
  nav: NavView;
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
  return renderPage('browsable', {
    name: v.name,
    csrfToken: v.csrfToken,
    nav: v.nav,
    breadcrumbs: v.breadcrumbs.map(([label, href]) => ({ label, href })),
    url: v.forms.url,
    jsonHref: v.jsonHref,
    descriptionHtml: linkify(v.description),
    filters: v.filters,
    response: {
      pagination: pagination(v.body),
      method: v.method,
      fullPath: v.fullPath,
      statusLine: statusLine(v.status),
      headers: v.headers.map(([name, value]) => ({ name, valueHtml: linkify(value) })),
      contentHtml: v.body !== undefined ? jsonHtml(v.body) : linkify(v.text ?? ''),
    },
    forms: v.csrfToken ? formsData(v.forms) : { url: v.forms.url },
    script: BROWSABLE_SCRIPT,
  });
}

/** Previous / next of a paginated list (the service's own links, http(s) only); null when there is neither. */
function pagination(body: unknown): { previous: string | null; next: string | null; count: number | null } | null {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('results' in body)) return null;
  const b = body as { count?: unknown; next?: unknown; previous?: unknown };
  if (!isHttpUrl(b.next) && !isHttpUrl(b.previous)) return null;
  return {
    previous: isHttpUrl(b.previous) ? b.previous : null,
    next: isHttpUrl(b.next) ? b.next : null,
    count: typeof b.count === 'number' ? b.count : null,
  };
}

/** The forms' JSON as the textareas start with it, and their field tables. */
function formsData(f: BrowsableForms) {
  return {
    url: f.url,
    post: f.post && { json: JSON.stringify(f.post.initial, null, 4), fields: fieldRows(f.post.fields) },
    edit: f.edit && { json: JSON.stringify(f.edit.initial, null, 4), etag: f.edit.etag, fields: fieldRows(f.edit.fields) },
    remove: f.remove,
  };
}

/** The writable fields of a form (from OPTIONS): what the JSON may carry. */
function fieldRows(fields: ActionFields): { name: string; type: string; notes: string }[] {
  return writable(fields).map(([name, f]) => {
    const notes = [
      f.required ? 'required' : '',
      typeof f.max_length === 'number' ? `max ${f.max_length} characters` : '',
      Array.isArray(f.choices) ? `one of ${f.choices.map((c) => JSON.stringify(c.value)).join(', ')}` : '',
      typeof f.help_text === 'string' ? f.help_text : '',
    ].filter(Boolean);
    return { name, type: String(f.type ?? ''), notes: notes.join('; ') };
  });
}
