import { createHash } from 'node:crypto';

/**
 * The one script of the browsable API's pages (inline, allowed by its hash in
 * the page's Content-Security-Policy; no build step). It does what plain HTML
 * cannot:
 *
 * - the forms (POST, PUT, PATCH, DELETE, OPTIONS) send the textarea's JSON
 *   through the same API, with the session cookie and the CSRF token in
 *   X-CSRFToken (the If-Match of the object shown, for PUT and PATCH), asking
 *   for HTML; the answer's request and response panel replaces this page's
 *   (and its forms too, when the write succeeded), as DRF's page does;
 * - the filter box reloads the list with the query string typed in it.
 *
 * Answers are parsed with DOMParser (which runs no script) and moved in as
 * nodes: nothing is ever assigned to innerHTML.
 */
export const BROWSABLE_SCRIPT = `(() => {
  'use strict';
  const meta = document.querySelector('meta[name="csrf-token"]');
  const status = (text) => {
    const el = document.getElementById('browsable-status');
    if (el) el.textContent = text;
  };
  const swap = (doc, id) => {
    const next = doc.getElementById(id);
    const current = document.getElementById(id);
    if (next && current) current.replaceWith(document.importNode(next, true));
  };
  async function send(method, url, body, etag) {
    const headers = { Accept: 'text/html' };
    if (meta) headers['X-CSRFToken'] = meta.content;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (etag && (method === 'PUT' || method === 'PATCH')) headers['If-Match'] = etag;
    status(method + ' ' + url + ' ...');
    let res;
    let text;
    try {
      res = await fetch(url, { method, headers, body, credentials: 'same-origin' });
      text = await res.text();
    } catch (err) {
      status('The request failed: ' + err.message);
      return;
    }
    const doc = new DOMParser().parseFromString(text, 'text/html');
    if (!doc.getElementById('response')) {
      status('HTTP ' + res.status + ' ' + res.statusText + ': ' + text.slice(0, 500));
      return;
    }
    swap(doc, 'response');
    if (res.ok && method !== 'OPTIONS') swap(doc, 'forms');
    status('');
  }
  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    if (form.id === 'filter-form') {
      event.preventDefault();
      const params = new URLSearchParams(form.elements.namedItem('filters').value.trim().replace(/^\\?/, ''));
      const format = new URLSearchParams(window.location.search).get('format');
      if (format && !params.has('format')) params.set('format', format);
      const query = params.toString();
      window.location.assign(window.location.pathname + (query ? '?' + query : ''));
      return;
    }
    if (!form.dataset.url) return;
    event.preventDefault();
    const button = event.submitter;
    const method = (button && button.value) || form.dataset.method || 'POST';
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
    const textarea = form.querySelector('textarea');
    send(method, form.dataset.url, textarea && method !== 'DELETE' && method !== 'OPTIONS' ? textarea.value : undefined, form.dataset.etag);
  });
})();
`;

/** The CSP source that lets exactly this script run. */
export const BROWSABLE_SCRIPT_HASH = `'sha256-${createHash('sha256').update(BROWSABLE_SCRIPT, 'utf8').digest('base64')}'`;
